"""`./rally bag info`: a bag's files, size, duration and topics, as `ros2 bag info` prints them."""

import datetime
import glob
import os
from typing import Dict, List

import yaml


def mcap_files(folder: str) -> List[str]:
    """Return the bag's MCAP files in order (metadata.yaml's list, else the folder's)."""
    metadata = _metadata(folder)
    if metadata is not None:
        names = metadata.get('relative_file_paths') or []
        files = [os.path.join(folder, name) for name in names]
    else:
        files = sorted(glob.glob(os.path.join(folder, '*.mcap')))
    if not files:
        raise ValueError('no MCAP file in it (rally_sim reads MCAP bags; a SQLite one: '
                         '`ros2 bag convert`, or rosbags)')
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        raise ValueError(f'metadata.yaml names {missing[0]}, which is missing')
    return files


def _metadata(folder: str):
    path = os.path.join(folder, 'metadata.yaml')
    if not os.path.isfile(path):
        return None
    with open(path, encoding='utf-8') as stream:
        document = yaml.safe_load(stream) or {}
    if 'rosbag2_bagfile_information' not in document:
        raise ValueError("metadata.yaml is not a rosbag2 bag's (no rosbag2_bagfile_information)")
    return document['rosbag2_bagfile_information']


def _summary(files: List[str]) -> Dict:
    """Read counts, types and times from the MCAP files' own summaries."""
    from mcap.reader import make_reader
    topics: Dict[str, Dict] = {}
    start, end = None, None
    for path in files:
        with open(path, 'rb') as stream:
            summary = make_reader(stream).get_summary()
        if summary is None or summary.statistics is None:
            raise ValueError(f'{os.path.basename(path)} has no summary (an unfinished '
                             'recording?)')
        stats = summary.statistics
        if stats.message_count:
            start = stats.message_start_time if start is None else min(start,
                                                                       stats.message_start_time)
            end = stats.message_end_time if end is None else max(end, stats.message_end_time)
        for channel_id, channel in summary.channels.items():
            schema = summary.schemas.get(channel.schema_id)
            entry = topics.setdefault(channel.topic, {
                'type': schema.name if schema else '', 'count': 0,
                'format': channel.message_encoding})
            entry['count'] += stats.channel_message_counts.get(channel_id, 0)
    return {'topics': topics, 'start': start or 0, 'end': end or 0}


def _when(ns: int) -> str:
    moment = datetime.datetime.fromtimestamp(ns // 10 ** 9)
    return f'{moment:%b %d %Y %H:%M:%S}.{ns % 10 ** 9:09d} ({ns // 10 ** 9}.{ns % 10 ** 9:09d})'


def _size(total: int) -> str:
    for unit in ('B', 'KiB', 'MiB', 'GiB'):
        if total < 1024 or unit == 'GiB':
            return f'{total:.1f} {unit}' if unit != 'B' else f'{total} B'
        total /= 1024.0
    return ''


def describe(folder: str) -> str:
    """Return the text `ros2 bag info` prints for this bag (counts from the MCAP summary)."""
    metadata = _metadata(folder)
    files = mcap_files(folder)
    summary = _summary(files)
    duration = summary['end'] - summary['start']
    topics = summary['topics']
    lines = [
        f"Files:             {', '.join(os.path.basename(f) for f in files)}",
        f'Bag size:          {_size(sum(os.path.getsize(f) for f in files))}',
        'Storage id:        mcap',
        f"ROS Distro:        {(metadata or {}).get('ros_distro', 'unknown')}",
        f'Duration:          {duration // 10 ** 9}.{duration % 10 ** 9:09d}s',
        f"Start:             {_when(summary['start'])}",
        f"End:               {_when(summary['end'])}",
        f"Messages:          {sum(t['count'] for t in topics.values())}",
    ]
    rows = [f"Topic: {name} | Type: {t['type']} | Count: {t['count']} | "
            f"Serialization Format: {t['format']}" for name, t in sorted(topics.items())]
    lines.append('Topic information: ' + (rows[0] if rows else ''))
    lines += ['                   ' + row for row in rows[1:]]
    return '\n'.join(lines) + '\n'
