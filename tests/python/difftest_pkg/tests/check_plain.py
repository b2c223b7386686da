"""Tests of the modules that are not converted (plain, refused)."""

from fakepkg.plain import double
from fakepkg.refused import AVAILABLE


def test_double():
    assert double(21) == 42


def test_refused_module_sees_no_cutile():
    assert AVAILABLE is False
