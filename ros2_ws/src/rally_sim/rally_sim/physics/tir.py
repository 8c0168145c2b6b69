"""
Tyre property files (.tir, the TNO/Adams layout) read into Magic Formula coefficients. ROS-free.

A file is `[SECTION]` headers and `KEY = value` lines; `$` and `!` start
comments (outside quotes), strings are quoted with ' or ", keys and
sections are read in any case. What the reader takes:

- [MODEL] FITTYP, as MFeval maps it: 6 or 21 (MF 5.2: MFeval's own MF 5.2
  sample carries 6), 61 (MF 6.1) or 62 (MF 6.2, the same steady-state
  equations); also 5 or 52 (MF 5.2, as Open-Car-Dynamics and PAC2002 files
  write it); another code is refused, naming the key. PROPERTY_FILE_FORMAT
  'PAC2002' without a FITTYP is read as MF 5.2.
- [UNITS]: LENGTH, FORCE, MASS, TIME and PRESSURE in any unit of UNITS (any case, a
  plural too: 'Meters', 'seconds');
  the dimensioned keys (DIMENSIONED) are converted to SI. ANGLE must be
  radian: the Magic Formula's coefficients are fitted on slip and camber
  angles, and a file fitted in degrees is not converted (refused, saying so).
- Every coefficient a file leaves out takes the value MFeval's reader
  (readTIR) gives it (DEFAULTS), as MFeval and TNO's solver read the file;
  two exceptions: the carcass stiffnesses (LONGITUDINAL_STIFFNESS,
  LATERAL_STIFFNESS) stay 0 when missing, so a file without them gives no
  relaxation lengths (MFeval's steady state does not use them), and a
  missing INFLPRES is NOMPRES (the tyre at its nominal pressure). A missing
  key whose default shapes a curve the file's version uses (SHAPING: the
  peak, shape and stiffness coefficients, PKY2, the combined-slip weights,
  the trail and the rolling resistance) is named in a warning (TirWarning,
  and TyreFile.warnings): the file's author may have meant 0. Each value's
  origin is kept (TyreFile.origins: the file, the file in other units, or
  the default; `./rally tyre FILE --keys` prints them).
- MF 5.2's camber scalings LGAX, LGAY and LGAZ are read and not applied,
  as MFeval does not apply them; a file that sets one to other than 1 is
  told so in a warning.

Errors (TirError) name the file, the section, the key, the value and why.
"""

from dataclasses import dataclass, field
import math
import re
from typing import Dict, List, Optional, Tuple
import warnings

FITTYPS = {5: '5.2', 52: '5.2', 6: '5.2', 21: '5.2', 61: '6.1', 62: '6.2'}
"""FITTYP values read, and the Magic Formula version each means."""
READ_CODES = '5, 6, 21 or 52: MF 5.2; 61: MF 6.1; 62: MF 6.2'
"""The FITTYP codes read, as errors name them."""

UNITS = {
    'LENGTH': {'meter': 1.0, 'metre': 1.0, 'm': 1.0, 'mm': 1e-3, 'millimeter': 1e-3,
               'centimeter': 1e-2, 'cm': 1e-2, 'inch': 0.0254, 'in': 0.0254,
               'foot': 0.3048, 'ft': 0.3048, 'km': 1e3},
    'FORCE': {'newton': 1.0, 'n': 1.0, 'kn': 1e3, 'kilonewton': 1e3, 'lbf': 4.4482216152605,
              'pound_force': 4.4482216152605, 'kgf': 9.80665},
    'ANGLE': {'radian': 1.0, 'radians': 1.0, 'rad': 1.0},
    'MASS': {'kg': 1.0, 'kilogram': 1.0, 'gram': 1e-3, 'g': 1e-3, 'lbm': 0.45359237,
             'pound_mass': 0.45359237, 'tonne': 1e3},
    'TIME': {'second': 1.0, 'sec': 1.0, 's': 1.0, 'millisecond': 1e-3, 'ms': 1e-3,
             'minute': 60.0, 'hour': 3600.0},
    'PRESSURE': {'pascal': 1.0, 'pa': 1.0, 'kpa': 1e3, 'kilopascal': 1e3, 'mpa': 1e6,
                 'bar': 1e5, 'psi': 6894.757293168, 'atm': 101325.0},
}
"""Each [UNITS] entry's units and their factor to SI."""

DIMENSIONED = {
    'UNLOADED_RADIUS': {'LENGTH': 1}, 'WIDTH': {'LENGTH': 1}, 'RIM_RADIUS': {'LENGTH': 1},
    'RIM_WIDTH': {'LENGTH': 1}, 'FNOMIN': {'FORCE': 1}, 'FZMIN': {'FORCE': 1},
    'FZMAX': {'FORCE': 1}, 'LONGVL': {'LENGTH': 1, 'TIME': -1},
    'VXLOW': {'LENGTH': 1, 'TIME': -1},
    'VERTICAL_STIFFNESS': {'FORCE': 1, 'LENGTH': -1},
    'VERTICAL_DAMPING': {'FORCE': 1, 'LENGTH': -1, 'TIME': 1},
    'NOMPRES': {'PRESSURE': 1}, 'INFLPRES': {'PRESSURE': 1}, 'PRESMIN': {'PRESSURE': 1},
    'PRESMAX': {'PRESSURE': 1}, 'MASS': {'MASS': 1},
    'LONGITUDINAL_STIFFNESS': {'FORCE': 1, 'LENGTH': -1},
    'LATERAL_STIFFNESS': {'FORCE': 1, 'LENGTH': -1},
    'IXX': {'MASS': 1, 'LENGTH': 2}, 'IYY': {'MASS': 1, 'LENGTH': 2},
}
"""The keys with a physical unit, and its dimensions; every other number is dimensionless."""

POSITIVE = ('FNOMIN', 'UNLOADED_RADIUS', 'LONGVL', 'NOMPRES', 'INFLPRES', 'PCX1', 'PCY1')
"""Keys that must be positive (when the file has them)."""

SCALING = ('LFZO LCX LMUX LEX LKX LHX LVX LCY LMUY LEY LKY LKYC LKZC LHY LVY LTR LRES LXAL LYKA '
           'LVYKA LS LMX LVMX LMY LMP LSGKP LSGAL LGAX LGAY LGAZ LMUV').split()
"""The scaling factors, [SCALING_COEFFICIENTS] (1 by default, LMUV 0)."""
COEFFICIENTS = tuple(SCALING) + tuple((
    # longitudinal
    'PCX1 PDX1 PDX2 PDX3 PEX1 PEX2 PEX3 PEX4 PKX1 PKX2 PKX3 PHX1 PHX2 PVX1 PVX2 '
    'PPX1 PPX2 PPX3 PPX4 RBX1 RBX2 RBX3 RCX1 REX1 REX2 RHX1 PTX1 PTX2 PTX3 '
    # lateral
    'PCY1 PDY1 PDY2 PDY3 PEY1 PEY2 PEY3 PEY4 PEY5 PKY1 PKY2 PKY3 PKY4 PKY5 PKY6 PKY7 '
    'PHY1 PHY2 PHY3 PVY1 PVY2 PVY3 PVY4 PPY1 PPY2 PPY3 PPY4 PPY5 RBY1 RBY2 RBY3 RBY4 '
    'RCY1 REY1 REY2 RHY1 RHY2 RVY1 RVY2 RVY3 RVY4 RVY5 RVY6 PTY1 PTY2 '
    # aligning moment
    'QBZ1 QBZ2 QBZ3 QBZ4 QBZ5 QBZ9 QBZ10 QCZ1 QDZ1 QDZ2 QDZ3 QDZ4 QDZ6 QDZ7 QDZ8 QDZ9 '
    'QDZ10 QDZ11 QEZ1 QEZ2 QEZ3 QEZ4 QEZ5 QHZ1 QHZ2 QHZ3 QHZ4 PPZ1 PPZ2 SSZ1 SSZ2 SSZ3 SSZ4 '
    # rolling resistance
    'QSY1 QSY2 QSY3 QSY4 QSY5 QSY6 QSY7 QSY8 '
    # operating conditions and model
    'FNOMIN UNLOADED_RADIUS LONGVL VXLOW NOMPRES INFLPRES '
    # carcass stiffnesses (MF 6.x relaxation)
    'LONGITUDINAL_STIFFNESS LATERAL_STIFFNESS PCFX1 PCFX2 PCFX3 PCFY1 PCFY2 PCFY3').split())
"""The coefficients the Magic Formula here uses (magic_formula.py), in a fixed order."""

MFEVAL_DEFAULTS: Dict[str, float] = {
    **dict.fromkeys(SCALING, 1.0), 'LMUV': 0.0,
    'PCX1': 1.65, 'PDX1': 1.3, 'PDX2': -0.15, 'PKX1': 20.0, 'RBX1': 20.0, 'RBX2': 15.0,
    'RCX1': 1.0, 'PCY1': 1.3, 'PDY1': 1.1, 'PDY2': -0.15, 'PKY1': -20.0, 'PKY2': 1.0,
    'PKY4': 2.0, 'PKY6': -1.0, 'RBY1': 10.0, 'RBY2': 10.0, 'RCY1': 1.0, 'RVY4': 20.0,
    'RVY5': 2.0, 'RVY6': 10.0, 'QBZ1': 10.0, 'QBZ9': 10.0, 'QCZ1': 1.1, 'QDZ1': 0.12,
    'QDZ8': -0.05, 'QSY1': 0.01, 'QSY3': 4.0e-4, 'QSY4': 4.0e-5, 'QSY7': 0.85, 'QSY8': -0.4,
    'FNOMIN': 4000.0, 'UNLOADED_RADIUS': 0.3135, 'LONGVL': 16.7, 'VXLOW': 1.0,
    'NOMPRES': 220000.0, 'INFLPRES': 220000.0,
    'LONGITUDINAL_STIFFNESS': 300000.0, 'LATERAL_STIFFNESS': 100000.0,
}
"""MFeval 4.0's readTIR: what a key the file leaves out is (every key of COEFFICIENTS not here:
0; LMUV, LGAX, LGAY and LGAZ, which MFeval does not read: 0, 1, 1, 1)."""
NOT_IN_MFEVAL = ('LMUV', 'LGAX', 'LGAY', 'LGAZ')
"""Keys MFeval's reader does not read (their defaults leave the formula as without them)."""
UNUSED = ('LGAX', 'LGAY', 'LGAZ')
"""MF 5.2's camber scaling factors: read, not applied (as MFeval); a file's other value warns."""
DEFAULTS: Dict[str, float] = {
    **MFEVAL_DEFAULTS, 'LONGITUDINAL_STIFFNESS': 0.0, 'LATERAL_STIFFNESS': 0.0}
"""What a coefficient the file leaves out is here: MFeval's, but no carcass stiffness."""
NOT_IN_52 = ('PKY4', 'PKY6', 'QSY7', 'QSY8', 'NOMPRES', 'INFLPRES')
"""Keys with a default that MF 5.2's equations do not use (its 2 in place of PKY4)."""
SHAPING = tuple(key for key in COEFFICIENTS if DEFAULTS.get(key, 0.0) != (
    1.0 if key in SCALING and key != 'LMUV' else 0.0)
    and key not in ('INFLPRES', 'LONGVL', 'VXLOW'))
"""The keys whose default gives a curve a shape or a size the file may not mean: a warning
names each one missing (INFLPRES follows NOMPRES; LONGVL and VXLOW only scale speed terms;
RVY4-6 shape a kappa-induced Fy only where RVY1-3 give it a size)."""


class TirWarning(UserWarning):
    """A tyre file read with a default where the file's author may have meant something else."""


class TirError(ValueError):
    """A tyre property file that cannot be used; the message names the file and the key."""


@dataclass
class TyreFile:
    """A tyre property file's Magic Formula: the coefficients in SI, by key."""

    path: str
    version: str                       # '5.2', '6.1' or '6.2'
    values: Dict[str, float]           # every key of COEFFICIENTS, and any other number read
    strings: Dict[str, str] = field(default_factory=dict)   # quoted values (TYRESIDE, ...)
    sections: Dict[str, str] = field(default_factory=dict)  # each key's section
    origins: Dict[str, str] = field(default_factory=dict)   # 'file', 'file, in ...', 'default'
    warnings: List[str] = field(default_factory=list)       # what TirWarning said

    def __getitem__(self, key: str) -> float:
        """Return a coefficient by its name (any case)."""
        return self.values[key.upper()]

    def coefficients(self) -> Tuple[float, ...]:
        """Return the coefficients in the order of COEFFICIENTS (the compiled formula's)."""
        return tuple(self.values[key] for key in COEFFICIENTS)


LINE = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$')
SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9_]+)\s*\]')


def _without_comment(line: str) -> str:
    """Return the line up to its first $ or ! outside quotes."""
    quote = None
    for k, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in '\'"':
            quote = char
        elif char in '$!':
            return line[:k]
    return line


def _parse(path: str, text: str):
    """Return {key: (section, raw value)} of the file's text, and of its [UNITS] apart."""
    entries, units, section = {}, {}, ''
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _without_comment(raw)
        if not line.strip():
            continue
        header = SECTION.match(line)
        if header:
            section = header.group(1).upper()
            continue
        match = LINE.match(line)
        if match is None:
            if section.endswith('_TABLE') or section == 'SHAPE' or section.startswith('MDI_'):
                continue            # tables (columns of numbers) are not read
            raise TirError(f'{path}:{number}: [{section}] cannot read {raw.strip()!r}: '
                           'expected KEY = value')
        (units if section == 'UNITS' else entries)[match.group(1).upper()] = (
            section, match.group(2))
    return entries, units


def _value(path: str, key: str, section: str, raw: str):
    """Return a quoted value as a string, any other as a float (TirError when not a number)."""
    if len(raw) >= 2 and raw[0] in '\'"' and raw[-1] == raw[0]:
        return raw[1:-1].strip()
    try:
        value = float(raw.replace('D', 'E').replace('d', 'e'))
    except ValueError:
        raise TirError(f'{path}: [{section}] {key} = {raw!r}: not a number') from None
    if not math.isfinite(value):
        raise TirError(f'{path}: [{section}] {key} = {raw}: not a finite number')
    return value


PLURALS = {'inches': 'inch', 'feet': 'foot'}
"""Plurals that are not the singular and an s."""


def _unit_named(unit: str, known: Dict[str, float]) -> Optional[str]:
    """Return the name in `known` a lower-case unit means: as written, or its singular."""
    for name in (unit, PLURALS.get(unit), unit[:-1] if unit.endswith('s') else None):
        if name in known:
            return name
    return None


def _units(path: str, entries) -> Dict[str, float]:
    """Return each [UNITS] entry's factor to SI (SI where the file says nothing)."""
    factors = dict.fromkeys(UNITS, 1.0)
    for name, known in UNITS.items():
        if name not in entries:
            continue
        written = str(_value(path, name, 'UNITS', entries[name][1])).strip().lower()
        unit = _unit_named(written, known)
        if unit is None:
            if name == 'ANGLE' and written.startswith('deg'):
                raise TirError(
                    f"{path}: [UNITS] ANGLE = '{written}': the Magic Formula coefficients are "
                    'read with angles in radians and a file fitted in degrees is not '
                    'converted; convert the file to radians')
            raise TirError(f"{path}: [UNITS] {name} = '{written}': unknown unit; known: "
                           f"{', '.join(sorted(known))} (and their plurals)")
        factors[name] = known[unit]
    return factors


def _version(path: str, values, strings, sections) -> str:
    """Return the Magic Formula version the file's FITTYP names (TirError for another model)."""
    if 'FITTYP' not in values:
        if strings.get('PROPERTY_FILE_FORMAT', '').upper() == 'PAC2002':
            return '5.2'
        raise TirError(f'{path}: [MODEL] FITTYP missing: the Magic Formula version '
                       f'({READ_CODES}) is not said')
    fittyp = values['FITTYP']
    if fittyp not in FITTYPS:
        raise TirError(f"{path}: [{sections.get('FITTYP', 'MODEL')}] FITTYP = {fittyp:g}: "
                       f'not a Magic Formula this reads ({READ_CODES})')
    return FITTYPS[int(fittyp)]


def read_tir(path: str) -> TyreFile:
    """Return the tyre property file at `path`, its coefficients in SI; TirError if unusable."""
    try:
        with open(path, encoding='utf-8', errors='replace') as stream:
            text = stream.read()
    except OSError as failure:
        raise TirError(f'cannot read tyre file {path}: {failure.strerror}') from None
    entries, units = _parse(path, text)
    factors = _units(path, units)
    units_named = {name: raw.strip(' \'"') for name, (_, raw) in units.items()}
    values, strings, sections, converted = {}, {}, {}, {}
    for key, (section, raw) in entries.items():
        value = _value(path, key, section, raw)
        sections[key] = section
        if isinstance(value, str):
            strings[key] = value
            continue
        for unit, power in DIMENSIONED.get(key, {}).items():
            if factors[unit] != 1.0:
                converted[key] = f'file, in {units_named[unit]}'
            value *= factors[unit] ** power
        values[key] = value
    version = _version(path, values, strings, sections)
    for key in POSITIVE:
        if key in values and not values[key] > 0.0:
            raise TirError(f'{path}: [{sections[key]}] {key} = {values[key]:g}: must be '
                           'positive')
    origins = dict.fromkeys(values, 'file')
    origins.update(converted)
    defaulted = [key for key in COEFFICIENTS if key not in values]
    for key in defaulted:
        values[key], origins[key] = DEFAULTS.get(key, 0.0), 'default'
    if 'INFLPRES' in defaulted:
        values['INFLPRES'], origins['INFLPRES'] = values['NOMPRES'], 'NOMPRES'
    if values['NOMPRES'] <= 0.0:         # MF 5.2 has no pressure: 6.x terms then vanish
        values['NOMPRES'] = values['INFLPRES'] if values['INFLPRES'] > 0.0 else 1.0
    if values['INFLPRES'] <= 0.0:
        values['INFLPRES'] = values['NOMPRES']
    said = [line for line in (_defaults_said(path, version, defaulted, values),
                              _unused_said(path, values, defaulted)) if line]
    for line in said:
        warnings.warn(line, TirWarning, stacklevel=2)
    return TyreFile(path, version, values, strings, sections, origins, said)


def _unused_said(path: str, values, defaulted: List[str]) -> str:
    """Return the warning naming MF 5.2's camber scalings a file sets to other than 1 ('')."""
    set_ = [f'{key} = {values[key]:g}' for key in UNUSED
            if key not in defaulted and values[key] != 1.0]
    if not set_:
        return ''
    return (f"{path}: {', '.join(set_)}: read and not applied (MFeval does not apply them "
            "either): scale the camber terms' own coefficients instead")


def _defaults_said(path: str, version: str, defaulted: List[str], values) -> str:
    """Return the warning naming the SHAPING keys a file left out, with their values ('': none)."""
    no_svyk = not any(values[key] for key in ('RVY1', 'RVY2', 'RVY3'))
    shaping = [key for key in defaulted if key in SHAPING
               and not (version == '5.2' and key in NOT_IN_52)
               and not (no_svyk and key in ('RVY4', 'RVY5', 'RVY6'))]
    if not shaping:
        return ''
    return (f"{path}: {', '.join(f'{key} = {values[key]:g}' for key in shaping)}: not in the "
            "file, so MFeval's default, which shapes the curves; write the key (0 if meant) "
            'to say otherwise')
