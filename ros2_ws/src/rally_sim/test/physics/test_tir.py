"""Tyre property files (.tir): the layout, units, versions and defaults, and each refusal."""

import os
import warnings

import numpy as np
import pytest
from rally_sim.physics import magic_formula as mf
from rally_sim.physics.tir import (
    COEFFICIENTS, DEFAULTS, MFEVAL_DEFAULTS, read_tir, SHAPING, TirError, TirWarning)
from rally_sim.resources import shipped, tyre_path

HERE = os.path.dirname(__file__)
MF52 = os.path.join(HERE, '..', 'support', 'tyres', 'mf52_test.tir')


def variant(tmp_path, old: str, new: str, name: str = 'variant.tir') -> str:
    """Return the path of the test file with one text replaced (which must be there)."""
    with open(MF52, encoding='utf-8') as stream:
        text = stream.read()
    assert old in text, old
    path = tmp_path / name
    path.write_text(text.replace(old, new), encoding='utf-8')
    return str(path)


def test_a_file_is_read_with_its_comments_quotes_and_any_case():
    tyre = read_tir(MF52)
    assert tyre.version == '5.2'
    assert tyre['PCY1'] == 1.35 and tyre['pdy1'] == 1.05       # [lateral_coefficients]
    assert tyre.strings['TYRESIDE'] == 'LEFT'                  # '...$...' after it: a comment
    assert tyre['PKX1'] == 22.0 and tyre['FNOMIN'] == 4000.0
    assert tyre.sections['PCY1'] == 'LATERAL_COEFFICIENTS'


def test_what_a_file_leaves_out_takes_mfevals_value_and_says_where_each_came_from():
    tyre = read_tir(MF52)
    assert tyre['PKY4'] == 2.0 and DEFAULTS['PKY4'] == 2.0      # MF 5.2's fixed 2
    assert tyre['LKY'] == 1.0 and tyre['LMUV'] == 0.0          # scaling 1, speed decay off
    assert tyre['PKY6'] == -1.0 and tyre['QDZ10'] == 0.0       # MFeval's readTIR
    assert tyre['LONGITUDINAL_STIFFNESS'] == 0.0               # no carcass: no relaxation
    assert MFEVAL_DEFAULTS['LONGITUDINAL_STIFFNESS'] == 300000.0
    assert tyre.origins['PCY1'] == 'file' and tyre.origins['PKY6'] == 'default'
    assert tyre.origins['INFLPRES'] == 'NOMPRES' and tyre.warnings == []
    assert len(tyre.coefficients()) == len(COEFFICIENTS)


def mf_out(tyre, fz=4000.0, kappa=0.0, alpha=0.0, gamma=0.0) -> np.ndarray:
    """Return the Magic Formula's outputs of a read tyre at one state (20 m/s)."""
    out = np.zeros(len(mf.OUTPUTS))
    mf.forces(mf.coefficients(tyre), tyre.version == '5.2', fz, kappa, alpha, gamma, 20.0,
              tyre['INFLPRES'], out)
    return out


def test_without_pky2_the_cornering_stiffness_keeps_its_sign_and_a_warning_names_it(tmp_path):
    # Issue 61: a missing PKY2 read as 0 turned the cornering stiffness positive.
    path = without(tmp_path, 'PKY2')
    with pytest.warns(TirWarning, match=r'PKY2 = 1: not in the file'):
        tyre = read_tir(path)
    assert tyre.origins['PKY2'] == 'default' and 'PKY2 = 1' in tyre.warnings[0]
    kya = mf_out(tyre)[mf.OUTPUTS.index('kya')]
    assert kya < 0.0 and mf_out(tyre, alpha=0.1)[1] < 0.0      # ISO: Fy opposes alpha


def without(tmp_path, *keys: str) -> str:
    """Return the path of the test file without the lines of `keys`."""
    lines = open(MF52, encoding='utf-8').read().splitlines()
    kept = [line for line in lines if line.split('=')[0].strip().upper() not in keys]
    assert len(kept) == len(lines) - len(keys), keys
    path = tmp_path / 'without.tir'
    path.write_text('\n'.join(kept) + '\n', encoding='utf-8')
    return str(path)


def test_without_the_combined_slip_keys_the_forces_are_still_reduced(tmp_path):
    # Issue 61: read as 0 there was no combined-slip reduction at all.
    path = without(tmp_path, 'RBX1', 'RBX2', 'RCX1', 'RBY1', 'RBY2', 'RCY1')
    with pytest.warns(TirWarning) as said:
        tyre = read_tir(path)
    for key in ('RBX1 = 20', 'RBX2 = 15', 'RCX1 = 1', 'RBY1 = 10', 'RBY2 = 10', 'RCY1 = 1'):
        assert key in str(said[0].message)
    pure, both = mf_out(tyre, kappa=0.1), mf_out(tyre, kappa=0.1, alpha=0.1)
    assert abs(both[0]) < 0.9 * abs(pure[0])
    assert 0.0 < both[mf.OUTPUTS.index('gxa')] < 0.9


def test_a_file_without_a_peak_coefficient_is_read_with_mfevals_and_warned_of(tmp_path):
    path = without(tmp_path, 'PDY1')
    with pytest.warns(TirWarning, match=r'PDY1 = 1.1'):
        tyre = read_tir(path)
    assert tyre['PDY1'] == 1.1


def test_the_shipped_tyres_leave_nothing_that_shapes_a_curve_to_a_default():
    files = [tyre_path(name) for name in shipped('tyres', '.tir')]
    assert len(files) >= 3
    with warnings.catch_warnings():
        warnings.simplefilter('error', TirWarning)
        for path in files:
            tyre = read_tir(path)
            assert not [k for k in SHAPING if tyre.origins[k] == 'default' and not (
                tyre.version == '5.2' and k in ('PKY4', 'PKY6', 'QSY7', 'QSY8', 'NOMPRES'))
                and not (k.startswith('RVY') and not tyre['RVY1'])], path


def test_units_are_converted_to_si(tmp_path):
    path = variant(tmp_path, "LENGTH                   = 'meter'", "LENGTH = 'mm'")
    text = open(path, encoding='utf-8').read()
    text = (text.replace("FORCE                    = 'newton'", "FORCE = 'kN'")
            .replace('UNLOADED_RADIUS          = 0.313', 'UNLOADED_RADIUS = 313')
            .replace('FNOMIN                   = 4000', 'FNOMIN = 4.0')
            .replace('VERTICAL_STIFFNESS       = 210000', 'VERTICAL_STIFFNESS = 0.21')
            .replace('LONGVL                   = 16.7', 'LONGVL = 16700')
            .replace("TIME                     = 'second'",
                     "TIME = 'second'\nPRESSURE = 'kPa'")
            .replace('VXLOW                    = 1.0', 'VXLOW = 1000.0\nNOMPRES = 220'))
    open(path, 'w', encoding='utf-8').write(text)
    tyre = read_tir(path)
    assert tyre['UNLOADED_RADIUS'] == pytest.approx(0.313)
    assert tyre['FNOMIN'] == pytest.approx(4000.0)
    assert tyre['VERTICAL_STIFFNESS'] == pytest.approx(210000.0)      # kN / mm
    assert tyre['LONGVL'] == pytest.approx(16.7) and tyre['VXLOW'] == pytest.approx(1.0)
    assert tyre['NOMPRES'] == pytest.approx(220e3)
    assert tyre['PKY1'] == -21.0                                      # dimensionless: as is
    assert tyre.origins['FNOMIN'] == 'file, in kN' and tyre.origins['PKY1'] == 'file'


def test_unit_names_in_any_case_and_plural_are_read(tmp_path):
    path = variant(tmp_path, "LENGTH                   = 'meter'", "LENGTH = 'Meters'")
    text = open(path, encoding='utf-8').read()
    text = (text.replace("FORCE                    = 'newton'", "FORCE = 'NEWTONS'")
            .replace("TIME                     = 'second'", "TIME = 'seconds'"))
    open(path, 'w', encoding='utf-8').write(text)
    assert read_tir(path).coefficients() == read_tir(MF52).coefficients()
    inches = variant(tmp_path, "LENGTH                   = 'meter'", "LENGTH = 'inches'",
                     'inches.tir')
    assert read_tir(inches)['UNLOADED_RADIUS'] == pytest.approx(0.313 * 0.0254)


@pytest.mark.parametrize('fittyp, version', [('5', '5.2'), ('52', '5.2'), ('6', '5.2'),
                                             ('21', '5.2'), ('61', '6.1'), ('62', '6.2')])
def test_the_magic_formula_versions_read(tmp_path, fittyp, version):
    path = variant(tmp_path, 'FITTYP                   = 52', f'FITTYP = {fittyp}')
    assert read_tir(path).version == version


def test_fittyp_6_and_21_are_mf_52_as_mfeval_reads_them(tmp_path):
    for fittyp in ('6', '21'):                  # MFeval's own MF 5.2 sample carries 6
        path = variant(tmp_path, 'FITTYP                   = 52', f'FITTYP = {fittyp}',
                       f'fittyp_{fittyp}.tir')
        assert read_tir(path).coefficients() == read_tir(MF52).coefficients()


def test_a_pac2002_file_without_fittyp_is_mf_52(tmp_path):
    path = variant(tmp_path, 'FITTYP                   = 52             $Magic Formula version',
                   "PROPERTY_FILE_FORMAT = 'PAC2002'")
    assert read_tir(path).version == '5.2'
    path = variant(tmp_path, 'FITTYP                   = 52             $Magic Formula version',
                   '', 'none.tir')
    with pytest.raises(TirError, match=r'\[MODEL\] FITTYP missing'):
        read_tir(path)


@pytest.mark.parametrize('old, new, message', [
    ('FITTYP                   = 52', 'FITTYP = 7',
     '[MODEL] FITTYP = 7: not a Magic Formula this reads'),
    ('PDY1                     = 1.05', 'PDY1 = nan', '[LATERAL_COEFFICIENTS] PDY1 = nan: not a '
     'finite number'),
    ('PDY1                     = 1.05', 'PDY1 = 1,05', "PDY1 = '1,05': not a number"),
    ("LENGTH                   = 'meter'", "LENGTH = 'furlong'",
     "[UNITS] LENGTH = 'furlong': unknown unit; known: centimeter, cm, foot"),
    ("ANGLE                    = 'radians'", "ANGLE = 'degree'",
     "[UNITS] ANGLE = 'degree': the Magic Formula coefficients are read with angles in "
     'radians'),
    ('FNOMIN                   = 4000', 'FNOMIN = -4000',
     '[VERTICAL] FNOMIN = -4000: must be positive'),
    ('UNLOADED_RADIUS          = 0.313', 'UNLOADED_RADIUS = 0',
     '[DIMENSION] UNLOADED_RADIUS = 0: must be positive'),
    ('PKX1                     = 22.0', 'PKX1 22.0',
     "[LONGITUDINAL_COEFFICIENTS] cannot read 'PKX1 22.0': expected KEY = value"),
])
def test_a_bad_file_is_refused_naming_the_file_section_key_value_and_why(
        tmp_path, old, new, message):
    path = variant(tmp_path, old, new)
    with pytest.raises(TirError) as error:
        read_tir(path)
    assert message in str(error.value) and path in str(error.value)


def test_a_missing_file_is_refused_naming_it(tmp_path):
    with pytest.raises(TirError, match=r'cannot read tyre file .*none\.tir: No such file'):
        read_tir(str(tmp_path / 'none.tir'))


def test_mf52s_camber_scalings_are_read_not_applied_and_a_file_that_sets_them_is_told(tmp_path):
    # Issue 61: LGAX, LGAY and LGAZ had no effect, silently; MFeval does not apply them either.
    text = open(MF52, encoding='utf-8').read().replace(
        '[SCALING_COEFFICIENTS]', '[SCALING_COEFFICIENTS]\nLGAY = 0.8\nLGAZ = 1.0')
    (tmp_path / 'scaled.tir').write_text(text, encoding='utf-8')
    with pytest.warns(TirWarning, match=r'LGAY = 0.8: read and not applied') as said:
        tyre = read_tir(str(tmp_path / 'scaled.tir'))
    assert 'LGAZ' not in str(said[0].message)                  # 1: nothing to tell
    plain = read_tir(MF52)
    assert (mf_out(tyre, alpha=0.1, gamma=0.05).tolist()
            == mf_out(plain, alpha=0.1, gamma=0.05).tolist())
