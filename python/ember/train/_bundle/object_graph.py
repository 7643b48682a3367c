# TensorFlow's object graph (TrackableObjectGraph): read into the paths Ember's restore matches, and written.

from ember._variables import Variable
from ember._wire.protowire import Field, ProtoError, decode, encode
from ember.errors import DataLossError, NotFoundError
from ember.train import _object_graph as graph

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"

_REFERENCE = {1: Field("node_id", "int32"), 2: Field("local_name", "string")}
_TENSOR = {1: Field("name", "string"), 2: Field("full_name", "string"), 3: Field("checkpoint_key", "string"),
           4: Field("optional_restore", "bool")}
_SLOT = {1: Field("original_variable_node_id", "int32"), 2: Field("slot_name", "string"),
         3: Field("slot_variable_node_id", "int32")}
_SAVER = {1: Field("name", "string"), 2: Field("object_name", "string")}
_OBJECT = {1: Field("children", "message", repeated=True, message=_REFERENCE),
           2: Field("attributes", "message", repeated=True, message=_TENSOR),
           3: Field("slot_variables", "message", repeated=True, message=_SLOT),
           4: Field("registered_saver", "message", message=_SAVER)}
_GRAPH = {1: Field("nodes", "message", repeated=True, message=_OBJECT)}


def restore_plan(reader):
    """What of the bundle ``reader`` Ember's restore can match, as Ember's object-graph dict:

    {"variables": [{"key": checkpoint key, "path": [names]}], "unsupported": [{"key", "why"}]}.
    A variable's path is the local names from the root (node 0) to it, the
    first path a breadth-first walk finds; list items are named "0", "1"...
    as in TensorFlow. Values Ember cannot put anywhere (optimizer slots,
    other attributes than a variable's value, registered savers) are
    listed as unsupported, so assert_consumed() reports them.
    """
    if OBJECT_GRAPH_KEY not in reader:
        raise NotFoundError(
            f"{reader.index_path!r} has no object graph (no {OBJECT_GRAPH_KEY!r} entry): it was not written by "
            f"tf.train.Checkpoint (a name-based tf.compat.v1.train.Saver checkpoint?), so Checkpoint.restore "
            f"cannot match it; read its tensors with ember.train.load_checkpoint")
    blob = reader.tensor(OBJECT_GRAPH_KEY)
    if not isinstance(blob, bytes):
        raise DataLossError(f"{reader.index_path!r}: the object graph is not a scalar string")
    try:
        nodes = decode(blob, _GRAPH)["nodes"]
    except ProtoError as e:
        raise DataLossError(f"{reader.index_path!r}: the object graph is corrupt: {e}") from None
    if not nodes:
        raise DataLossError(f"{reader.index_path!r}: the object graph has no nodes")
    paths = {0: ()}
    queue = [0]
    for node_id in queue:  # breadth first; queue grows while iterating
        for child in nodes[node_id]["children"]:
            target = child["node_id"]
            if not 0 <= target < len(nodes):
                raise DataLossError(f"{reader.index_path!r}: the object graph refers to node {target} of "
                                    f"{len(nodes)}")
            if target not in paths:
                paths[target] = paths[node_id] + (child["local_name"],)
                queue.append(target)
    plan = {"variables": [], "unsupported": []}
    slot_nodes = {}
    for node_id in queue:
        for slot in nodes[node_id]["slot_variables"]:
            slot_nodes[slot["slot_variable_node_id"]] = (node_id, slot)
    for node_id, node in enumerate(nodes):
        path = paths.get(node_id)
        if path is None and node_id not in slot_nodes:
            continue  # unreachable from the root
        where = "/".join(path) if path is not None else _slot_name(slot_nodes[node_id], paths)
        if node["registered_saver"] is not None:
            plan["unsupported"].append({"key": where, "why": f"saved by the registered saver "
                                                             f"{node['registered_saver']['name']!r}"})
        for attribute in node["attributes"]:
            key = attribute["checkpoint_key"]
            if path is not None and attribute["name"] == VARIABLE_VALUE:
                plan["variables"].append({"key": key, "path": list(path)})
            elif path is None:
                plan["unsupported"].append({"key": key, "why": where})
            elif not attribute["optional_restore"]:
                plan["unsupported"].append({"key": key, "why": f"attribute {attribute['name']!r} of {where}"})
    return plan


def _slot_name(owner_and_slot, paths):
    optimizer_id, slot = owner_and_slot
    variable = paths.get(slot["original_variable_node_id"], ("?",))
    optimizer = "/".join(paths[optimizer_id]) or "the root"
    return f"the optimizer slot {slot['slot_name']!r} that {optimizer} keeps for {'/'.join(variable)}"


def _escape(local_name):
    # TensorFlow's escaping of names in checkpoint keys: "." doubles, "/" becomes ".S".
    return local_name.replace(".", "..").replace("/", ".S")


def tensorflow_object_graph(root):
    """(the TrackableObjectGraph bytes, {checkpoint key: NumPy array}) of the variables reachable from root.

    Nodes are numbered breadth first from the root, and each variable's key is
    its first breadth-first path plus "/.ATTRIBUTES/VARIABLE_VALUE", as
    TensorFlow names them; an object reachable twice is one node. Optimizer
    slots are not written (see docs/modules_and_checkpoints.md).
    """
    ids, paths, queue, nodes = {id(root): 0}, [()], [root], [{"children": [], "attributes": []}]
    arrays = {}
    for obj in queue:  # queue grows while iterating
        node = nodes[ids[id(obj)]]
        if isinstance(obj, Variable):
            key = "/".join(_escape(p) for p in paths[ids[id(obj)]]) + "/.ATTRIBUTES/" + VARIABLE_VALUE
            node["attributes"].append({"name": VARIABLE_VALUE, "full_name": obj.name or key, "checkpoint_key": key})
            arrays[key] = obj.numpy()
            continue
        for name, child in graph.children(obj) or ():
            if not graph.is_trackable(child):
                continue
            if id(child) not in ids:
                ids[id(child)] = len(nodes)
                nodes.append({"children": [], "attributes": []})
                paths.append(paths[ids[id(obj)]] + (str(name),))
                queue.append(child)
            node["children"].append({"node_id": ids[id(child)], "local_name": str(name)})
    return encode({"nodes": nodes}, _GRAPH), arrays
