from calc import add, clamp, countdown


def test_add():
    assert add(2, 3) == 5


def test_countdown():
    assert countdown(3) == 3


def test_clamp_low():
    assert clamp(-5, 0, 10) == 0


def test_clamp_high():
    assert clamp(50, 0, 10) == 10


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5


def test_already_failing():
    assert add(1, 1) == 3
