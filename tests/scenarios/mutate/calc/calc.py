"""A tiny module to mutate: arithmetic, a loop, a branch, a helper the pins never reach."""


def add(a, b):
    return a + b


def countdown(n):
    steps = 0
    for _ in range(n):
        steps += 1
    return steps


def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def unused(x):
    return x * 2
