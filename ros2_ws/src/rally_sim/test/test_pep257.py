"""ament_pep257 (docstring conventions) over the package."""

import os

from ament_pep257.main import main
import pytest

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257():
    rc = main(argv=[os.path.join(PACKAGE_DIR, 'rally_sim'), os.path.join(PACKAGE_DIR, 'test')])
    assert rc == 0, 'Found code style errors / warnings'
