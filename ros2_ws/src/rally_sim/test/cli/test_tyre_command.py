"""`./rally tyre`: a tyre file's curves, table and plot, and its refusals."""

import csv
import math
import os

import numpy as np
import pytest
from rally_sim.cli.tyre_curves import main
from rally_sim.physics import magic_formula as mf
from rally_sim.physics.tir import read_tir

MF52 = os.path.join(os.path.dirname(__file__), '..', 'support', 'tyres', 'mf52_test.tir')


def test_it_prints_the_peaks_and_writes_the_table_and_the_plot(tmp_path, capsys):
    table, picture = tmp_path / 'curves.csv', tmp_path / 'curves.png'
    assert main([MF52, '--load', '3000', '5000', '--csv', str(table), '--plot',
                 str(picture)]) == 0
    printed = capsys.readouterr().out
    assert 'Magic Formula 5.2, FNOMIN 4000 N' in printed and 'table:' in printed
    with open(table, encoding='utf-8') as stream:
        rows = list(csv.DictReader(stream))
    assert {r['curve'] for r in rows} >= {'side_slip', 'longitudinal_slip', 'combined_4deg'}
    side = [r for r in rows if r['curve'] == 'side_slip' and float(r['load_n']) == 5000.0]
    peak = max(abs(float(r['fy_n'])) for r in side)
    p, out = mf.coefficients(read_tir(MF52)), np.zeros(len(mf.OUTPUTS))
    fy = []
    for alpha in np.radians(np.linspace(-25.0, 25.0, 201)):
        mf.forces(p, True, 5000.0, 0.0, alpha, 0.0, 16.7, 0.0, out)
        fy.append(abs(out[1]))
    assert peak == pytest.approx(max(fy), rel=1e-12)      # the table is the formula's
    assert f'{peak:.0f}' in printed                         # and the summary shows its peak
    assert picture.stat().st_size > 20_000


def test_a_file_it_cannot_use_is_refused_with_the_reason(tmp_path, capsys):
    bad = tmp_path / 'other.tir'
    bad.write_text(open(MF52, encoding='utf-8').read().replace(
        'FITTYP                   = 52', 'FITTYP = 7'), encoding='utf-8')
    assert main(['no_such.tir']) == 2
    assert 'cannot read tyre file no_such.tir' in capsys.readouterr().err
    assert main([str(bad)]) == 2
    assert 'FITTYP = 7: not a Magic Formula this reads' in capsys.readouterr().err


@pytest.mark.parametrize('args, message', [
    (['--load', '0'], '--load 0: a load must be positive'),
    (['--camber', 'nan'], '--camber nan: not a finite number'),
    (['--camber', '0.8'], '--camber 0.8: at most 0.5 rad'),
])
def test_a_bad_argument_is_refused_with_the_reason(args, message, capsys):
    with pytest.raises(SystemExit) as exit_status:
        main([MF52] + args)
    assert exit_status.value.code == 2 and message in capsys.readouterr().err


def test_a_vehicle_on_tir_tyres_gives_each_axles_tyre_at_its_load_and_camber(tmp_path, capsys):
    assert main(['rwd_gravel_mf', '--plot', str(tmp_path / 'car.png')]) == 0
    printed = capsys.readouterr().out
    assert 'front tyre, camber 0.0175 rad' in printed and 'rear tyre, camber 0.0087 rad' in printed
    # rwd_gravel: 1050 kg, 1.10 / 1.30 m: a front wheel carries 2790 N, a rear one 2361 N
    assert '     2790 ' in printed and '     2361 ' in printed
    assert (tmp_path / 'car_front.png').exists() and (tmp_path / 'car_rear.png').exists()
    mine = tmp_path / 'my_car.yaml'                 # a user's own vehicle file, by path
    mine.write_text(open(os.path.join(os.path.dirname(__file__), '..', '..', 'config',
                                      'vehicles', 'rwd_gravel_mf.yaml'),
                         encoding='utf-8').read(), encoding='utf-8')
    assert main([str(mine)]) == 0
    assert capsys.readouterr().out.count('     2790 ') == printed.count('     2790 ')
    assert main(['nosuch']) == 2
    assert "'nosuch' is not a tyre file, a shipped tyre" in capsys.readouterr().err


def test_keys_prints_each_coefficient_and_where_it_came_from(tmp_path, capsys):
    text = open(MF52, encoding='utf-8').read().replace(
        "FORCE                    = 'newton'", "FORCE = 'kN'").replace(
        'FNOMIN                   = 4000', 'FNOMIN = 4.0')
    lines = [line for line in text.splitlines() if not line.startswith('PKY2')]
    (tmp_path / 'mine.tir').write_text('\n'.join(lines) + '\n', encoding='utf-8')
    assert main([str(tmp_path / 'mine.tir'), '--keys']) == 0
    printed = capsys.readouterr().out
    rows = {line.split()[0]: line for line in printed.splitlines() if line[:1].isupper()}
    assert rows['FNOMIN'].split()[1] == '4000' and rows['FNOMIN'].endswith('file, in kN')
    assert rows['PCY1'].endswith('  file')
    assert rows['PKY2'].split()[1] == '1' and rows['PKY2'].endswith("default (MFeval's readTIR)")
    assert 'warning: ' in printed and 'PKY2 = 1: not in the file' in printed
    assert len([k for k in rows if k in read_tir(MF52).values]) >= 150


def test_the_defaults_listed_in_the_docs_are_the_codes(capsys):
    assert main(['--defaults']) == 0
    table = capsys.readouterr().out.strip()
    docs = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..', 'docs',
                        'physics.md')
    text = open(docs, encoding='utf-8').read()
    listed = text.split('<!-- tyre-defaults: ./rally tyre --defaults -->\n')[1].split(
        '\n<!-- /tyre-defaults -->')[0]
    assert listed == table, 'docs/physics.md: paste ./rally tyre --defaults'
    assert '| PKY2 | 1 |' in table and '| RBX1 | 20 |' in table


def test_a_vehicle_on_document_tyres_is_drawn_and_compared_with_a_tir_tyre(tmp_path, capsys):
    # Issue 61: the document's one-curve tyre is what a drift researcher compares first.
    table, picture = tmp_path / 'v40.csv', tmp_path / 'v40.png'
    assert main(['volvo_v40', '--compare', 'pacejka_2006_205_60r15', '--csv', str(table),
                 '--plot', str(picture)]) == 0
    printed = capsys.readouterr().out
    assert "volvo_v40: document 002's tyre, mu 1.1, B 10, C 1.3, D 1" in printed
    assert 'pacejka_2006_205_60r15.tir: Magic Formula 6.1' in printed
    with open(table, encoding='utf-8') as stream:
        rows = list(csv.DictReader(stream))
    assert {r['tyre'] for r in rows} == {'volvo_v40', 'pacejka_2006_205_60r15.tir'}
    document = [r for r in rows if r['tyre'] == 'volvo_v40' and r['curve'] == 'side_slip']
    for r in document[::20]:        # mu Fz D sin(C atan(B tan alpha)), against the slip angle
        load, alpha = float(r['load_n']), float(r['slip_angle_rad'])
        expected = -1.1 * load * math.sin(1.3 * math.atan(10.0 * math.tan(alpha)))
        assert float(r['fy_n']) == pytest.approx(expected, rel=1e-12, abs=1e-9)
        assert float(r['mz_n_m']) == 0.0
    loads = sorted({float(r['load_n']) for r in document})
    assert len(loads) == 3 and loads[1] == pytest.approx(1600 * 9.81 * 1.497 / 2.647 / 2, rel=0.01)
    assert picture.stat().st_size > 20_000
    assert main(['rwd_gravel_mf', '--compare', 'rwd_gravel']) == 0   # each axle against it
    printed = capsys.readouterr().out
    assert printed.count("document 002's tyre") == 2 and printed.count('Magic Formula') == 2
