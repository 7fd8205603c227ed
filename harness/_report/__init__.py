"""Report stage: report.json (``assemble``, checked by ``validate`` against ``schemas/``), report.md
(``markdown``) and junit.xml (``junit``)."""

__all__: list[str] = []
