"""Client sides of the sdk_clients scenario suite (inproc.py is imported by the harness)."""
