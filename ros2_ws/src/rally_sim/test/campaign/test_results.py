"""The campaign's table, its report, and the ROS domains its workers take."""

import math
import os

import pyarrow.parquet as pq
from rally_sim.campaign import domains
from rally_sim.campaign.report import summary, worst_runs, write_report
from rally_sim.campaign.results import ResultTable
from rally_sim.campaign.spec import load_campaign
import yaml


def small_campaign(tmp_path):
    path = tmp_path / 'campaign.yaml'
    path.write_text(yaml.safe_dump({'scenario': 'path_follow', 'matrix': {
        'friction_scale': [0.5, 1.0], 'sensors': ['ideal', 'typical']}}))
    return load_campaign(str(path))


def result(k, passed=True, error=''):
    metrics = {'cross_track_rms_m': 0.1 * k, 'cross_track_max_m': 0.5 * k,
               'heading_error_rms_rad': 0.01, 'completion_time_s': math.inf if error else 40.0 + k,
               'off_road_time_s': 0.0, 'mean_speed_m_s': 7.0, 'collisions': 0.0,
               'min_clearance_m': 2.5}
    return {'passed': passed, 'metrics': {} if error else metrics, 'simulated_s': 50.0,
            'wall_s': 2.0 + k, 'attempts': 1 + bool(error), 'error': error,
            'folder': f'runs/{k}'}


def test_the_table_keeps_runs_as_they_finish_and_resumes_in_run_order(tmp_path):
    campaign = small_campaign(tmp_path)
    table = ResultTable(campaign, str(tmp_path / 'out'))
    for k in (2, 0, 3):                         # finished out of order
        table.add(campaign.runs[k], result(k, passed=k != 3, error='boom' if k == 3 else ''))
        # the whole table at most once a second; the journal holds the rows it lacks
        assert os.path.exists(table.parquet_path)
        assert ResultTable(campaign, str(tmp_path / 'out')).resume() == len(table.rows)
    with open(table.journal_path, 'a', encoding='utf-8') as journal:
        journal.write('{"run_id": "00001", "cut short by a cr')
    assert ResultTable(campaign, str(tmp_path / 'out')).resume() == 3
    table.write()
    assert len(pq.read_table(table.parquet_path)) == 3
    assert not os.path.exists(table.journal_path)
    assert not [f for f in os.listdir(tmp_path / 'out') if f.endswith('.partial')]
    header, *lines = (tmp_path / 'out' / 'results.csv').read_text().splitlines()
    assert header.split(',')[:5] == ['run_id', 'friction_scale', 'sensors', 'repeat', 'seed']
    assert [line.split(',')[0] for line in lines] == ['00000', '00002', '00003']
    rows = pq.read_table(table.parquet_path).to_pylist()
    assert rows[0]['friction_scale'] == 0.5 and rows[0]['sensors'] == 'ideal'
    assert rows[1]['cross_track_max_m'] == 1.0 and rows[1]['seed'] == campaign.runs[2].seed
    assert rows[2]['error'] == 'boom' and math.isnan(rows[2]['cross_track_rms_m'])
    again = ResultTable(campaign, str(tmp_path / 'out'))
    assert again.resume() == 3
    assert [again.done(run) for run in campaign.runs] == [True, False, True, True]
    again.add(campaign.runs[1], result(1))
    again.write()
    whole = ResultTable(campaign, str(tmp_path / 'whole'))
    for k in range(4):
        whole.add(campaign.runs[k], result(k, passed=k != 3, error='boom' if k == 3 else ''))
    whole.write()
    resumed = pq.read_table(again.parquet_path).to_pylist()
    assert repr(resumed) == repr(pq.read_table(whole.parquet_path).to_pylist())   # NaN too


def test_the_report_puts_errors_and_failures_first_and_draws_every_parameter(tmp_path):
    campaign = small_campaign(tmp_path)
    table = ResultTable(campaign, str(tmp_path))
    for k in range(4):
        table.add(campaign.runs[k], result(k, passed=k < 2, error='timed out' if k == 3 else ''))
    thresholds = campaign.runs[0].spec['thresholds']
    rows = table.ordered()
    assert [r['run_id'] for r in worst_runs(rows, thresholds)] == [
        '00003', '00002', '00001', '00000']
    text = summary(rows, campaign.parameters, thresholds)
    assert '4 runs: 2 passed, 1 failed, 1 could not run (50 % pass)' in text
    assert 'pass rate by friction_scale: 0.5: 100 %, 1: 0 %' in text
    assert 'pass rate by sensors: ideal: 50 %, typical: 50 %' in text
    png, page = write_report(rows, campaign.parameters, thresholds, str(tmp_path), 'small')
    assert os.path.getsize(png) > 10000
    assert 'timed out' in open(page, encoding='utf-8').read()


def test_each_lease_is_a_domain_of_its_own_never_0_nor_the_user_s(monkeypatch, tmp_path):
    monkeypatch.setattr(domains, 'lock_folder', lambda: str(tmp_path))
    monkeypatch.setenv('ROS_DOMAIN_ID', '101')
    first, second = domains.lease(), domains.lease()
    assert first.domain != second.domain
    assert {first.domain, second.domain} <= set(domains.DOMAINS) - {0, 101}
    taken = first.domain
    first.release()
    with domains.lease() as third:
        assert third.domain == taken                # let go: free again
    second.release()


def test_the_box_plots_show_each_group_s_infinite_values_at_the_top():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from rally_sim.campaign.report import _mark_infinite
    fig, ax = plt.subplots()
    _mark_infinite(ax, [[40.0, math.inf, math.inf], [41.0], [math.inf]])
    assert sorted(t.get_text() for t in ax.texts) == ['1 inf', '2 inf']
    assert [line.get_xdata()[0] for line in ax.lines] == [0, 2]       # above groups 0 and 2
    plt.close(fig)


def test_a_report_of_runs_with_thresholds_of_their_own_judges_each_by_its_own(tmp_path):
    campaign = small_campaign(tmp_path)
    table = ResultTable(campaign, str(tmp_path))
    for k in range(4):
        table.add(campaign.runs[k], result(k, passed=True))
    rows = table.ordered()
    own = {row['run_id']: {'completion_time_s': {'max': 40.5 + 10.0 * (k == 1)}}
           for k, row in enumerate(rows)}
    # farthest from its own bound first: run 00001 (41 s) is well within its 50.5 s
    assert [r['run_id'] for r in worst_runs(rows, own)] == ['00003', '00002', '00000', '00001']
    assert [r['run_id'] for r in worst_runs(rows, own['00000'])] == [
        '00003', '00002', '00001', '00000']             # one bound for all: by the lap time
    text = summary(rows, campaign.parameters, own)
    assert '00002 PASS (friction_scale=1, sensors=ideal): completion_time_s 42' in text
    png, _ = write_report(rows, campaign.parameters, own, str(tmp_path), 'own')
    assert os.path.getsize(png) > 10000
