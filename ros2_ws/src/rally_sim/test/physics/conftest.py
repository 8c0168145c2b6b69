"""Fixtures of the physics tests: the packaged vehicle files."""

import pytest

from support.vehicles import vehicle


@pytest.fixture
def v40_document():
    """Return the V40 of document 002 in document mode."""
    return vehicle('volvo_v40_document')


@pytest.fixture
def v40():
    """Return the V40 with the default numerics."""
    return vehicle('volvo_v40')
