"""
The campaign's table: one row per run, kept as each run finishes.

DIR/results.csv and DIR/results.parquet (pyarrow) are written whole and
replaced atomically (written beside, then renamed): at the end, and while
the campaign runs at most once a second (and at most a fiftieth of the
time: a table of 10,000 rows written after every run would cost more than
the runs). Each row is also appended, as it comes, to DIR/results.journal.jsonl
until the next whole table holds it, so a crash or Ctrl-C leaves the last table
whole and loses no finished run (--resume reads both). Rows are in run order, so a resumed
campaign's table is the uninterrupted one's. Columns: run_id, the
campaign's parameters, repeat, seed, passed, the scenario's metrics,
simulated_s, wall_s, cpu_s (the runner's and its processes' CPU seconds), attempts,
error, folder, key (what --resume matches).
"""

import csv
import json
import math
import os
import time
from typing import Any, Dict, List

from .spec import Campaign, Run
from ..scenarios.spec import METRICS, stage_walls, WORLD_METRICS

TAIL = ['simulated_s', 'wall_s', 'cpu_s', 'attempts', 'error', 'folder', 'key']
WRITE_EVERY_S = 1.0
"""The least wall time between two whole tables while a campaign runs."""
WRITE_SHARE = 0.02
"""The most of its wall time the campaign spends writing whole tables meanwhile."""


class ResultTable:
    """The rows so far, and where they are written."""

    def __init__(self, campaign: Campaign, folder: str):
        """Start an empty table for `campaign` in `folder`."""
        self.folder = folder
        self.parameters = [p for p in campaign.parameters if p != 'seed']    # a column
        self.metrics = list(METRICS[campaign.metrics])
        spec = campaign.runs[0].spec if campaign.runs else None
        if spec is not None and (stage_walls(spec['stage']) is not None or spec['opponents']):
            self.metrics += list(WORLD_METRICS) + (['passes'] if spec['opponents'] else [])
        self.columns = (['run_id'] + self.parameters + ['repeat', 'seed', 'passed']
                        + self.metrics + TAIL)
        self._types = {name: _column_type([run.params.get(name) for run in campaign.runs])
                       for name in self.parameters}
        self.rows: Dict[str, Dict[str, Any]] = {}
        self._next_write = 0.0      # monotonic time: the first row's table is written at once

    @property
    def csv_path(self) -> str:
        """Return the CSV file's path."""
        return os.path.join(self.folder, 'results.csv')

    @property
    def parquet_path(self) -> str:
        """Return the Parquet file's path."""
        return os.path.join(self.folder, 'results.parquet')

    @property
    def journal_path(self) -> str:
        """Return the journal's path: the rows the last whole table does not hold yet."""
        return os.path.join(self.folder, 'results.journal.jsonl')

    def earlier(self) -> bool:
        """Return whether the folder holds an earlier campaign's rows."""
        return os.path.exists(self.parquet_path) or os.path.exists(self.journal_path)

    def resume(self) -> int:
        """Take the rows of an earlier table in the folder, and its journal's; return how many."""
        if os.path.isfile(self.parquet_path):
            import pyarrow.parquet as pq
            for row in pq.read_table(self.parquet_path).to_pylist():
                self.rows[row['key']] = row
        if os.path.isfile(self.journal_path):
            with open(self.journal_path, encoding='utf-8') as journal:
                for line in journal:
                    try:
                        row = json.loads(line)
                    except ValueError:      # a line cut short by a crash: that run again
                        continue
                    self.rows[row['key']] = row
        return len(self.rows)

    def done(self, run: Run) -> bool:
        """Return whether the table has `run` already."""
        return run.key in self.rows

    def add(self, run: Run, result: Dict[str, Any]) -> Dict[str, Any]:
        """Add a finished run's row and write the table; return the row."""
        row: Dict[str, Any] = {'run_id': run.run_id}
        row.update({name: run.params.get(name) for name in self.parameters})
        row.update(repeat=run.repeat, seed=run.seed, passed=bool(result['passed']))
        row.update({m: float(result['metrics'].get(m, math.nan)) for m in self.metrics})
        row.update(simulated_s=float(result['simulated_s']), wall_s=float(result['wall_s']),
                   cpu_s=float(result.get('cpu_s', math.nan)),
                   attempts=int(result.get('attempts', 1)), error=result['error'],
                   folder=result.get('folder', ''), key=run.key)
        self.rows[run.key] = row
        os.makedirs(self.folder, exist_ok=True)
        with open(self.journal_path, 'a', encoding='utf-8') as journal:
            journal.write(json.dumps(row) + '\n')
        if time.monotonic() >= self._next_write:
            self.write()
        return row

    def ordered(self) -> List[Dict[str, Any]]:
        """Return the rows in run order."""
        return sorted(self.rows.values(), key=lambda row: row['run_id'])

    def write(self) -> None:
        """Write both files whole, each replacing the last atomically; empty the journal."""
        start = time.monotonic()
        rows = self.ordered()
        os.makedirs(self.folder, exist_ok=True)
        _replace(self.csv_path, lambda path: self._write_csv(path, rows))
        _replace(self.parquet_path, lambda path: self._write_parquet(path, rows))
        if os.path.exists(self.journal_path):
            os.remove(self.journal_path)
        took = time.monotonic() - start
        self._next_write = start + took + max(WRITE_EVERY_S, took / WRITE_SHARE)

    def _write_csv(self, path: str, rows: List[Dict[str, Any]]) -> None:
        with open(path, 'w', encoding='utf-8', newline='') as out:
            writer = csv.DictWriter(out, self.columns)
            writer.writeheader()
            writer.writerows(rows)

    def _write_parquet(self, path: str, rows: List[Dict[str, Any]]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        types = {'run_id': pa.string(), 'repeat': pa.int64(), 'seed': pa.int64(),
                 'passed': pa.bool_(), 'attempts': pa.int64(), 'error': pa.string(),
                 'folder': pa.string(), 'key': pa.string(),
                 **{m: pa.float64() for m in self.metrics + ['simulated_s', 'wall_s', 'cpu_s']},
                 **{name: getattr(pa, kind)() for name, kind in self._types.items()}}
        schema = pa.schema([(name, types[name]) for name in self.columns])
        columns = {name: [_typed(row[name], self._types.get(name)) for row in rows]
                   for name in self.columns}
        pq.write_table(pa.table(columns, schema=schema), path)


def _column_type(values: List[Any]) -> str:
    """Return the pyarrow type name of a parameter column: int64, float64 or string."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return 'int64'
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       for v in present):
        return 'float64'
    return 'string'


def _typed(value: Any, kind: str) -> Any:
    """Return a parameter value as its column holds it (strings: as YAML wrote them)."""
    if kind == 'string' and value is not None and not isinstance(value, str):
        return json.dumps(value)
    if kind == 'float64' and value is not None:
        return float(value)
    return value


def _replace(path: str, write) -> None:
    """Write a file beside `path` with write(temporary path), then rename it over `path`."""
    temporary = f'{path}.partial'
    write(temporary)
    os.replace(temporary, path)
