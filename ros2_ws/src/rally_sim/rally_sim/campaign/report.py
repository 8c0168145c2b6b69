"""
What a campaign shows: pass rates, metric spreads per parameter value, the worst runs.

summary() is the text printed at the end; write_report() draws report.png
(pass rate overall and per parameter value; each thresholded metric's
spread per value, its threshold dashed) and writes report.html (the
picture, the summary, the worst runs with links to their logs).
A parameter with more than MAX_GROUPS values (drawn by sample:) is cut
into that many bins of equal counts. `thresholds` are the runs' own, by
run id (a campaign's may scale with a parameter), or one set for every run.
"""

import html
import math
import os
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

MAX_GROUPS = 8
WORST = 5


def _per_run(thresholds) -> bool:
    """
    Return whether `thresholds` are by run id (run ids are digits; metric names never).

    Its first key tells (keys are all run ids or all metric names): called
    for every run and metric, a look at every key made a report of 10,000
    runs take minutes.
    """
    return bool(thresholds) and next(iter(thresholds)).isdigit()


def bounds_of(thresholds, row: Dict[str, Any]) -> Dict[str, Dict[str, float]]:
    """Return a run's thresholds: its own (thresholds by run id), or the ones of every run."""
    return thresholds[row['run_id']] if _per_run(thresholds) else thresholds


def metrics_of(thresholds) -> List[str]:
    """Return the thresholded metrics, of every run."""
    sets = thresholds.values() if _per_run(thresholds) else [thresholds]
    return list(dict.fromkeys(metric for bounds in sets for metric in bounds))


def severity(row: Dict[str, Any], thresholds) -> float:
    """Return how far a run is from its thresholds: the largest value / bound ratio."""
    if row['error']:
        return math.inf
    worst = 0.0
    for metric, bound in bounds_of(thresholds, row).items():
        value = row.get(metric, math.nan)
        if not np.isfinite(value):
            return math.inf
        if 'max' in bound and bound['max'] > 0:
            worst = max(worst, value / bound['max'])
        if 'min' in bound and value > 0:
            worst = max(worst, bound['min'] / value)
    return worst


def worst_runs(rows: List[Dict[str, Any]], thresholds, count: int = WORST):
    """Return the `count` runs farthest from passing (errors and failures first)."""
    return sorted(rows, key=lambda r: (r['passed'], -severity(r, thresholds),
                                       r['run_id']))[:count]


def groups(rows: List[Dict[str, Any]], parameter: str) -> List[Tuple[str, List[Dict]]]:
    """Return (label, rows) per value of a parameter, binned when it has many values."""
    values = [row[parameter] for row in rows]
    distinct = sorted(set(values), key=_order)
    if len(distinct) <= MAX_GROUPS or not all(isinstance(v, (int, float)) for v in values):
        return [(_label(v), [r for r in rows if r[parameter] == v]) for v in distinct]
    edges = np.quantile(values, np.linspace(0.0, 1.0, MAX_GROUPS + 1))
    bins = np.clip(np.searchsorted(edges, values, side='right') - 1, 0, MAX_GROUPS - 1)
    return [(f'{edges[b]:.3g}-{edges[b + 1]:.3g}', [r for r, k in zip(rows, bins) if k == b])
            for b in range(MAX_GROUPS) if (bins == b).any()]


def _order(value: Any):
    return (0, value, '') if isinstance(value, (int, float)) else (1, 0, str(value))


def _label(value: Any) -> str:
    return f'{value:g}' if isinstance(value, float) else str(value)


def summary(rows: List[Dict[str, Any]], parameters: Sequence[str], thresholds) -> str:
    """Return the summary table: pass rates overall and per parameter value, worst runs."""
    passed = sum(r['passed'] for r in rows)
    errors = sum(bool(r['error']) for r in rows)
    lines = [f'{len(rows)} runs: {passed} passed, {len(rows) - passed - errors} failed, '
             f'{errors} could not run ({_rate(passed, len(rows))} pass)']
    for parameter in parameters:
        cells = [f'{label}: {_rate(sum(r["passed"] for r in group), len(group))}'
                 for label, group in groups(rows, parameter)]
        lines.append(f'  pass rate by {parameter}: ' + ', '.join(cells))
    lines.append('worst runs:')
    for row in worst_runs(rows, thresholds):
        bounds = bounds_of(thresholds, row)
        failed = [m for m, bound in bounds.items() if not _within(row[m], bound)]
        what = row['error'] or ', '.join(
            f'{m} {row[m]:.3g}' for m in (failed or bounds))
        params = ', '.join(f'{p}={_label(row[p])}' for p in parameters)
        lines.append(f"  {row['run_id']} {'PASS' if row['passed'] else 'FAIL'} ({params}): "
                     f"{what}; {row['folder']}")
    return '\n'.join(lines)


def _within(value: float, bound: Dict[str, float]) -> bool:
    return bound.get('min', -math.inf) <= value <= bound.get('max', math.inf)


def _rate(passed: int, total: int) -> str:
    return f'{100.0 * passed / total:.0f} %' if total else '-'


def write_report(rows: List[Dict[str, Any]], parameters: Sequence[str], thresholds,
                 folder: str, title: str) -> List[str]:
    """Write report.png and report.html into folder; return their paths."""
    png = os.path.join(folder, 'report.png')
    _plot(rows, parameters, thresholds, png, title)
    page = os.path.join(folder, 'report.html')
    with open(page, 'w', encoding='utf-8') as out:
        out.write(_html(rows, parameters, thresholds, folder, title))
    return [png, page]


def _plot(rows, parameters, thresholds, path: str, title: str) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    metrics = metrics_of(thresholds)
    shown = list(parameters) or ['run_id']
    fig, axes = plt.subplots(len(shown), 1 + len(metrics), squeeze=False,
                             figsize=(4.2 * (1 + len(metrics)), 3.4 * len(shown)))
    for i, parameter in enumerate(shown):
        grouped = groups(rows, parameter)
        labels = [label for label, _ in grouped]
        rates = [100.0 * sum(r['passed'] for r in g) / len(g) for _, g in grouped]
        axes[i, 0].bar(range(len(rates)), rates, color='tab:green')
        axes[i, 0].set_ylim(0, 100)
        axes[i, 0].set_ylabel('pass rate [%]')
        for j, metric in enumerate(metrics, start=1):
            data = [[r[metric] for r in g if np.isfinite(r[metric])] for _, g in grouped]
            axes[i, j].boxplot([d if d else [np.nan] for d in data],
                               positions=range(len(data)))
            _mark_infinite(axes[i, j], [[r[metric] for r in g] for _, g in grouped])
            for k, (_, group) in enumerate(grouped):      # each group's bounds, dashed
                lines = {bounds_of(thresholds, r).get(metric, {}).get(side)
                         for r in group for side in ('max', 'min')} - {None}
                for value in lines:
                    axes[i, j].hlines(value, k - 0.4, k + 0.4, color='tab:red',
                                      linestyle='--', linewidth=1)
            axes[i, j].set_ylabel(metric)
        for ax in axes[i]:
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels(labels, rotation=30, fontsize=8)
            ax.set_xlabel(parameter)
            ax.grid(True, alpha=0.3)
    passed = sum(r['passed'] for r in rows)
    fig.suptitle(f'{title}: {passed} of {len(rows)} runs passed '
                 f'({_rate(passed, len(rows))}); thresholds dashed')
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _mark_infinite(ax, values) -> None:
    """Show each group's infinite values (a lap never completed) at the top of the axes."""
    counts = [(k, sum(1 for v in group if np.isinf(v))) for k, group in enumerate(values)]
    counts = [(k, n) for k, n in counts if n]
    if not counts:
        return
    for k, n in counts:
        ax.plot(k, 1.0, marker='^', color='tab:red', transform=ax.get_xaxis_transform(),
                clip_on=False)
        ax.annotate(f'{n} inf', (k, 1.0), xycoords=ax.get_xaxis_transform(),
                    textcoords='offset points', xytext=(0, 5), ha='center', fontsize=7,
                    color='tab:red')


def _html(rows, parameters, thresholds, folder: str, title: str) -> str:
    def link(row, name):
        target = os.path.join(row['folder'], name)
        if not os.path.exists(target):
            return ''
        return f'<a href="{html.escape(os.path.relpath(target, folder))}">{name}</a>'
    worst = ''.join(
        f"<tr><td>{row['run_id']}</td><td>{'PASS' if row['passed'] else 'FAIL'}</td>"
        f"<td>{html.escape(', '.join(f'{p}={_label(row[p])}' for p in parameters))}</td>"
        f"<td>{html.escape(row['error'] or '')}</td>"
        f"<td>{link(row, 'simulator.log')} {link(row, 'controller.log')} "
        f"{link(row, 'report.json')}</td></tr>"
        for row in worst_runs(rows, thresholds))
    return (f'<!doctype html><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'<h1>{html.escape(title)}</h1><img src="report.png" style="max-width:100%">'
            f'<pre>{html.escape(summary(rows, parameters, thresholds))}</pre>'
            '<h2>Worst runs</h2><table border="1" cellpadding="4"><tr><th>run</th>'
            '<th>verdict</th><th>parameters</th><th>error</th><th>logs</th></tr>'
            f'{worst}</table><p>Every run: results.csv, results.parquet.</p>')
