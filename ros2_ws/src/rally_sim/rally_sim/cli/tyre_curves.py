"""
A tyre's curves as a tyre engineer reads them: `./rally tyre FILE.tir`, `python -m rally_sim.tyre`.

    python -m rally_sim.tyre FILE.tir|TYRE|VEHICLE [--compare OTHER] [--load N ...]
        [--camber RAD] [--speed V] [--plot FILE] [--csv FILE] [--keys]

From a tyre property file (.tir, Magic Formula 5.2 or 6.x; physics/tir.py),
a shipped tyre by name (config/tyres), or a vehicle file or preset (on .tir
tyres or on document 002's one-curve tyre: mu D sin(C atan(B s)) of the
combined slip, no aligning moment): each axle's tyre at that axle's static
wheel load (half, one and one and a half times it) and camber (its left
wheel's inclination); --compare OTHER draws a second tyre (file, shipped
tyre or vehicle, axle by axle) dashed over the first, at the same loads:
Fy against the slip angle at three loads (default half, one and one and a
half times FNOMIN), Fx against the slip ratio, Mz against the slip angle,
and the combined-slip envelope (Fx against Fy as the slip ratio runs, at
fixed slip angles). Prints a summary per load (peaks, where they are, the
slip stiffnesses); --csv writes the table behind the curves, --plot a PNG,
--keys each coefficient the formula uses, its value in SI and where it
came from (the file, the file in other units, or MFeval's default). A key
left out that shapes a curve is named in a warning (physics/tir.py).
Axes and signs are the file's (ISO-W: a positive slip angle gives a
negative Fy). Exit status: 0, or 2 for a file or argument that cannot be
used (the message says why).
"""

import argparse
import csv
import math
import os
import sys
from typing import Dict, List, Sequence, Tuple
import warnings

import numpy as np

from ..physics import ConfigError, load_vehicle
from ..physics import magic_formula as mf
from ..physics.tir import (
    COEFFICIENTS, DEFAULTS, MFEVAL_DEFAULTS, NOT_IN_MFEVAL, read_tir, SCALING, TirError,
    TirWarning, TyreFile)
from ..physics.tyre import unit_forces
from ..resources import shipped, tyre_path, vehicle_path

SLIP_ANGLES_RAD = np.radians(np.linspace(-25.0, 25.0, 201))
SLIP_RATIOS = np.linspace(-0.5, 0.5, 121)
ENVELOPE_ANGLES_DEG = (1.0, 2.0, 4.0, 8.0)
"""The slip angles of the combined-slip envelope's curves [deg]."""
COLUMNS = ('tyre', 'curve', 'load_n', 'slip_angle_rad', 'slip_ratio', 'fx_n', 'fy_n', 'mz_n_m')
DOCUMENT_SPEED_M_S = 10.0
"""The speed the document tyre's curves are drawn at (it has none of its own; it needs none)."""


class TirCurves:
    """A .tir tyre's forces and moments (the Magic Formula), as the curves take them."""

    def __init__(self, tyre: TyreFile):
        """Keep the file and its coefficients."""
        self.tyre, self.p = tyre, mf.coefficients(tyre)
        self.name, self.version52 = os.path.basename(tyre.path), tyre.version == '5.2'
        self.nominal_n, self.speed_m_s = tyre['FNOMIN'], tyre['LONGVL']
        self.warnings = tyre.warnings
        self.out = np.zeros(len(mf.OUTPUTS))

    def title(self) -> str:
        """Return the summary's first line."""
        return (f'{self.tyre.path}: Magic Formula {self.tyre.version}, FNOMIN '
                f"{self.tyre['FNOMIN']:g} N, unloaded radius {self.tyre['UNLOADED_RADIUS']:g} m "
                '(ISO-W axes)')

    def forces(self, load: float, kappa: float, alpha: float, camber: float,
               speed: float) -> Tuple[float, float, float]:
        """Return Fx, Fy [N] and Mz [N m] at a state."""
        mf.forces(self.p, self.version52, load, kappa, alpha, camber, speed,
                  self.tyre['INFLPRES'], self.out)
        return float(self.out[0]), float(self.out[1]), float(self.out[2])

    def stiffnesses(self, load: float, speed: float) -> Tuple[float, float]:
        """Return the cornering stiffness Kya [N/rad] and slip stiffness Kxk [N] at a load."""
        self.forces(load, 0.0, 0.0, 0.0, speed)
        return (float(self.out[mf.OUTPUTS.index('kya')]),
                float(self.out[mf.OUTPUTS.index('kxk')]))


class DocumentCurves:
    """
    Document 002's tyre (A.6): mu Fz D sin(C atan(B s)) along the combined slip, as curves.

    A rolling wheel's slips in the file's axes: s = (kappa, tan alpha), the
    force against the slip (ISO-W: a positive slip angle, a negative Fy); no
    aligning moment, no camber.
    """

    def __init__(self, mu: float, b: float, c: float, d: float, name: str, load_n: float):
        """Keep the four numbers; load_n: the load its curves are drawn about."""
        self.mu, self.b, self.c, self.d, self.name = mu, b, c, d, name
        self.nominal_n, self.speed_m_s, self.warnings = load_n, DOCUMENT_SPEED_M_S, []

    def title(self) -> str:
        """Return the summary's first line."""
        return (f"{self.name}: document 002's tyre, mu {self.mu:g}, B {self.b:g}, C {self.c:g}, "
                f'D {self.d:g} (ISO-W axes; no aligning moment, no camber)')

    def forces(self, load: float, kappa: float, alpha: float, camber: float,
               speed: float) -> Tuple[float, float, float]:
        """Return Fx, Fy [N] and Mz (0) at a state."""
        ux, uy = unit_forces(kappa, math.tan(alpha), self.b, self.c, self.d)
        return self.mu * load * ux, self.mu * load * uy, 0.0

    def stiffnesses(self, load: float, speed: float) -> Tuple[float, float]:
        """Return the cornering and slip stiffnesses at a load: -+ mu Fz D C B."""
        stiffness = self.mu * load * self.d * self.c * self.b
        return -stiffness, stiffness


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog='./rally tyre', description=__doc__.split('\n\n')[0],
                                     epilog='Axes: ISO-W, as the file is fitted.')
    parser.add_argument('tir', metavar='FILE.tir|TYRE|VEHICLE', nargs='?',
                        help='tyre property file, a shipped tyre (' + ', '.join(
                            shipped('tyres', '.tir')) + '), or a vehicle file or preset (on '
                        ".tir tyres or document 002's)")
    parser.add_argument('--compare', metavar='OTHER',
                        help='a second tyre (file, shipped tyre or vehicle) drawn over the first')
    parser.add_argument('--load', type=float, nargs='+', metavar='N',
                        help='wheel loads [N] (default 0.5, 1 and 1.5 FNOMIN, or a vehicle '
                        "axle's static wheel load)")
    parser.add_argument('--camber', type=float, default=None, metavar='RAD',
                        help="inclination angle [rad]; default 0 (a vehicle's: its axle's)")
    parser.add_argument('--speed', type=float, default=None, metavar='V',
                        help="forward speed [m/s]; default the file's LONGVL")
    parser.add_argument('--plot', metavar='FILE', help='write the curves as a PNG')
    parser.add_argument('--csv', metavar='FILE', help='write the table behind them')
    parser.add_argument('--keys', action='store_true',
                        help="print each coefficient's value (SI) and where it came from")
    parser.add_argument('--defaults', action='store_true',
                        help='print what a key a file leaves out is (Markdown; no file)')
    args = parser.parse_args(argv)
    if args.tir is None and not args.defaults:
        parser.error('a tyre file, a shipped tyre or a vehicle is needed (or --defaults)')
    for name in ('load', 'camber', 'speed'):
        values = getattr(args, name)
        for value in (values if isinstance(values, list) else [values]):
            if value is not None and not math.isfinite(value):
                parser.error(f'--{name} {value}: not a finite number')
    if args.load and min(args.load) <= 0.0:
        parser.error(f'--load {min(args.load):g}: a load must be positive [N]')
    if args.camber is not None and abs(args.camber) > 0.5:
        parser.error(f'--camber {args.camber:g}: at most 0.5 rad either way')
    return args


def curves(tyre, loads: Sequence[float], camber: float,
           speed: float) -> List[Dict[str, float]]:
    """Return the rows of every curve (COLUMNS) of a TirCurves or DocumentCurves, ISO-W axes."""
    rows = []

    def row(curve: str, load: float, alpha: float, kappa: float) -> None:
        fx, fy, mz = tyre.forces(load, kappa, alpha, camber, speed)
        rows.append(dict(zip(COLUMNS, (tyre.name, curve, load, alpha, kappa, fx, fy, mz))))

    for load in loads:
        for alpha in SLIP_ANGLES_RAD:
            row('side_slip', load, float(alpha), 0.0)
        for kappa in SLIP_RATIOS:
            row('longitudinal_slip', load, 0.0, float(kappa))
    for degrees in ENVELOPE_ANGLES_DEG:
        for kappa in SLIP_RATIOS:
            row(f'combined_{degrees:g}deg', loads[len(loads) // 2], math.radians(degrees),
                float(kappa))
    return rows


def summary(tyre, rows: List[Dict[str, float]], loads: Sequence[float], speed: float) -> str:
    """Return the table of peaks and stiffnesses per load."""
    lines = [tyre.title(),
             f"{'load [N]':>9} {'Fy peak [N]':>12} {'at [deg]':>9} {'mu_y':>6} "
             f"{'Fx peak [N]':>12} {'at slip':>8} {'mu_x':>6} {'C_alpha [N/rad]':>16} "
             f"{'C_kappa [N]':>12} {'Mz peak [N m]':>14}"]
    for load in loads:
        side = [r for r in rows if r['curve'] == 'side_slip' and r['load_n'] == load]
        drive = [r for r in rows if r['curve'] == 'longitudinal_slip' and r['load_n'] == load]
        fy = max(side, key=lambda r: abs(r['fy_n']))
        fx = max(drive, key=lambda r: abs(r['fx_n']))
        mz = max(side, key=lambda r: abs(r['mz_n_m']))
        kya, kxk = tyre.stiffnesses(load, speed)
        lines.append(f'{load:9.0f} {fy["fy_n"]:12.0f} {math.degrees(fy["slip_angle_rad"]):9.1f}'
                     f' {abs(fy["fy_n"]) / load:6.3f} {fx["fx_n"]:12.0f} '
                     f'{fx["slip_ratio"]:8.3f} {abs(fx["fx_n"]) / load:6.3f} {kya:16.0f} '
                     f'{kxk:12.0f} {mz["mz_n_m"]:14.1f}')
    return '\n'.join(lines)


def keys(tyre: TyreFile) -> str:
    """Return each coefficient the formula uses: its value in SI and where it came from."""
    lines = [f'{"key":<24} {"value (SI)":>14}  from']
    for key in COEFFICIENTS:
        lines.append(f'{key:<24} {tyre[key]:14.6g}  {origin(tyre, key)}')
    return '\n'.join(lines)


def defaults_table() -> str:
    """Return the keys a file may leave out whose default is not 0 (nor a scaling factor's 1)."""
    given = [(key, DEFAULTS[key]) for key in COEFFICIENTS
             if DEFAULTS.get(key, 0.0) != 0.0 and key not in SCALING]
    rows = -(-len(given) // 3)
    lines = ['| key | default | key | default | key | default |', '|---|---|---|---|---|---|']
    for i in range(rows):
        cells = [given[j] for j in (i, i + rows, i + 2 * rows) if j < len(given)]
        lines.append('| ' + ' | '.join(f'{key} | {value:g}' for key, value in cells) + ' |')
    return '\n'.join(lines)


def origin(tyre: TyreFile, key: str) -> str:
    """Return where a coefficient's value came from, in words."""
    said = tyre.origins.get(key, 'default')
    if said == 'NOMPRES':
        return 'NOMPRES (not in the file)'
    if said != 'default':
        return said
    if key in NOT_IN_MFEVAL:
        return 'default (a key MFeval does not read)'
    if DEFAULTS.get(key, 0.0) != MFEVAL_DEFAULTS.get(key, 0.0):
        return f"default (MFeval's {MFEVAL_DEFAULTS[key]:g}: not used here, no relaxation)"
    return "default (MFeval's readTIR)"


def plot(drawn: List[Tuple[str, List[Dict[str, float]]]], loads: Sequence[float],
         path: str) -> None:
    """Write the four panels as a PNG: each (tyre name, rows) drawn, the second dashed."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for (name, rows), style in zip(drawn, ('-', '--')):
        tag = f' {name}' if len(drawn) > 1 else ''
        for k, load in enumerate(loads):
            side = [r for r in rows if r['curve'] == 'side_slip' and r['load_n'] == load]
            drive = [r for r in rows if r['curve'] == 'longitudinal_slip'
                     and r['load_n'] == load]
            options = {'linestyle': style, 'color': f'C{k}', 'label': f'{load:.0f} N{tag}'}
            axes[0, 0].plot([math.degrees(r['slip_angle_rad']) for r in side],
                            [r['fy_n'] for r in side], **options)
            axes[0, 1].plot([r['slip_ratio'] for r in drive], [r['fx_n'] for r in drive],
                            **options)
            axes[1, 0].plot([math.degrees(r['slip_angle_rad']) for r in side],
                            [r['mz_n_m'] for r in side], **options)
        for k, degrees in enumerate(ENVELOPE_ANGLES_DEG):
            combined = [r for r in rows if r['curve'] == f'combined_{degrees:g}deg']
            axes[1, 1].plot([r['fy_n'] for r in combined], [r['fx_n'] for r in combined],
                            linestyle=style, color=f'C{k}', label=f'{degrees:g} deg{tag}')
    titles = (('slip angle [deg]', 'Fy [N]'), ('slip ratio', 'Fx [N]'),
              ('slip angle [deg]', 'Mz [N m]'), ('Fy [N]', 'Fx [N]'))
    for ax, (x, y) in zip(axes.flat, titles):
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    axes[1, 1].set_title(f'combined slip (friction circle) at {loads[len(loads) // 2]:.0f} N, '
                         'slip ratio -0.5..0.5', fontsize=9)
    fig.suptitle(' against '.join(name for name, _ in drawn) + ' (ISO-W; '
                 + ('dashed: the second)' if len(drawn) > 1 else 'one tyre)'), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def tyres_named(name: str) -> List[Tuple[str, object, float, float]]:
    """
    Return (axle, tyre curves, camber, static wheel load) of each tyre `name` means.

    A .tir file or a shipped tyre is one (axle '', camber 0, load its
    FNOMIN); a vehicle gives its front and its rear (one if both are the
    same at the same camber): TirCurves on .tir tyres, DocumentCurves on
    document 002's. Raises TirError or ConfigError saying why a name means none.
    """
    path = tyre_path(name)
    vehicle_file = path.lower().endswith(('.yaml', '.yml'))
    if not vehicle_file and (path.lower().endswith('.tir') or os.path.isfile(path)):
        tyre = read_tir(path)
        return [('', TirCurves(tyre), 0.0, tyre['FNOMIN'])]
    try:
        config = load_vehicle(vehicle_path(name))
    except ConfigError as error:
        raise ConfigError(f"'{name}' is not a tyre file, a shipped tyre ("
                          f"{', '.join(shipped('tyres', '.tir'))}) nor a vehicle: "
                          f'{error}') from None
    lf, lr = config['cg_to_front_axle_m'], config['cg_to_rear_axle_m']
    weight = config['mass_kg'] * config['gravity_m_s2']
    loads = [0.5 * weight * share / (lf + lr) for share in (lr, lf)]
    files = config.tyre_files()
    if files[0] is None:
        axles = [(axle, DocumentCurves(*(config[f'tyres.{axle}.{key}'] for key in
                                         ('mu', 'B', 'C', 'D')),
                                       f'{os.path.basename(name)} {axle}', load), 0.0, load)
                 for axle, load in zip(('front', 'rear'), loads)]
        same = all(config[f'tyres.front.{k}'] == config[f'tyres.rear.{k}']
                   for k in ('mu', 'B', 'C', 'D'))
    else:
        axles = [(axle, TirCurves(tyre), -config[f'tyres.{axle}.camber_rad'], load)
                 for axle, tyre, load in zip(('front', 'rear'), files, loads)]
        same = axles[0][1].tyre.path == axles[1][1].tyre.path and axles[0][2] == axles[1][2]
    if same:
        axles[0][1].name = axles[0][1].name.replace(' front', '')
        return [('front and rear', axles[0][1], axles[0][2], axles[0][3])]
    return axles


def main(argv=None) -> int:
    """Print each tyre's summary; write its curves' table and plot if asked."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.defaults:
        print(defaults_table())
        if args.tir is None:
            return 0
    try:
        with warnings.catch_warnings():     # printed below, with each tyre
            warnings.simplefilter('ignore', TirWarning)
            tyres = tyres_named(args.tir)
            others = tyres_named(args.compare) if args.compare else []
    except (TirError, ConfigError) as error:
        print(f'./rally tyre: error: {error}', file=sys.stderr)
        return 2
    for k, (axle, tyre, camber, load) in enumerate(tyres):
        loads = args.load or [0.5 * load, load, 1.5 * load]
        camber = camber if args.camber is None else args.camber
        drawn = []
        if axle:
            print(f"{axle} tyre, camber {camber:g} rad (the left wheel's inclination):")
        for one in [tyre] + ([others[min(k, len(others) - 1)][1]] if others else []):
            speed = one.speed_m_s if args.speed is None else args.speed
            rows = curves(one, loads, camber, speed)
            drawn.append((one.name, rows))
            print(summary(one, rows, loads, speed))
            for said in one.warnings:
                print(f'warning: {said}')
            if args.keys and isinstance(one, TirCurves):
                print(keys(one.tyre))
        suffix = f'_{axle}' if len(tyres) > 1 else ''
        if args.csv:
            written = _suffixed(args.csv, suffix)
            with open(written, 'w', newline='', encoding='utf-8') as stream:
                writer = csv.DictWriter(stream, fieldnames=COLUMNS)
                writer.writeheader()
                for _, rows in drawn:
                    writer.writerows(rows)
            print(f'table: {written} ({sum(len(rows) for _, rows in drawn)} rows)')
        if args.plot:
            written = _suffixed(args.plot, suffix)
            plot(drawn, loads, written)
            print(f'plot: {written}')
    return 0


def _suffixed(path: str, suffix: str) -> str:
    """Return `path` with `suffix` before its extension (one file per axle)."""
    stem, extension = os.path.splitext(path)
    return stem + suffix + extension
