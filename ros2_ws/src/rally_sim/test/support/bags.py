"""Read a recorded bag with two independent readers, as analysis scripts do."""

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.rosbag2 import Reader
from rosbags.typesys import get_types_from_msg, get_typestore, Stores


def decode_with_rosbags(bag_dir) -> dict:
    """
    Return {topic: [message]} decoded by rosbags, every message of the bag.

    The types come from the definitions the bag carries (an empty type
    store), as for a reader without our message packages; rosbags checks
    that each message's CDR size matches its definition exactly.
    """
    store = get_typestore(Stores.EMPTY)
    decoded = {}
    with Reader(bag_dir) as reader:
        for connection in reader.connections:
            store.register(get_types_from_msg(connection.msgdef.data, connection.msgtype))
        for connection, _, raw in reader.messages():
            decoded.setdefault(connection.topic, []).append(
                store.deserialize_cdr(raw, connection.msgtype))
    return decoded


def decode_with_mcap_ros2(bag_dir) -> dict:
    """Return {topic: [message]} decoded by mcap_ros2 from the bag's MCAP file."""
    decoded = {}
    with open(next(bag_dir.glob('*.mcap')), 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, channel, _, message in reader.iter_decoded_messages():
            decoded.setdefault(channel.topic, []).append(message)
    return decoded


def decode_everything(bag_dir) -> dict:
    """Decode every message with both readers; check they agree; return mcap_ros2's."""
    by_rosbags = decode_with_rosbags(bag_dir)
    by_mcap = decode_with_mcap_ros2(bag_dir)
    assert {t: len(m) for t, m in by_rosbags.items()} == {t: len(m) for t, m in by_mcap.items()}
    return by_mcap
