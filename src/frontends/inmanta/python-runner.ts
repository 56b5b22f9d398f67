/**
 * The Python side of module plugins, run as `python3 -c RUNNER` with one JSON request on stdin and one JSON
 * answer on stdout. It provides a small `inmanta.plugins` (the `plugin` decorator, `Context`,
 * `PluginException`) and `inmanta.ast` (the exceptions plugins raise), loads `inmanta_plugins.<module>` from
 * each module's plugins/ folder, and either describes the plugins' signatures or calls one.
 *
 * Values cross as JSON with tags: a float is {"f": x}, a dict {"m": {...}}, an entity instance {"i": id}
 * (its known attributes travel in a table beside the arguments). Reading an attribute that is not known yet
 * answers {"unset": [id, name]}, and the compiler runs the call again once it is.
 */

const AST = `
class CompilerException(Exception):
    def __init__(self, msg=""):
        Exception.__init__(self, msg)
        self.msg = msg
    def get_message(self):
        return self.msg
    def __str__(self):
        return str(self.msg)

class RuntimeException(CompilerException):
    def __init__(self, stmt=None, msg=""):
        CompilerException.__init__(self, msg)
        self.stmt = stmt

class NotFoundException(RuntimeException):
    def __init__(self, stmt=None, name="", msg=None):
        RuntimeException.__init__(self, stmt, msg if msg is not None else "could not find value %s" % name)
        self.name = name

class OptionalValueException(RuntimeException):
    pass

class UnsetException(RuntimeException):
    pass
`;

const PLUGINS = `
from inmanta.ast import RuntimeException

class PluginException(Exception):
    def __init__(self, message):
        Exception.__init__(self, message)
        self.message = message

class Context:
    def __init__(self, namespace):
        self._namespace = namespace
    def _unsupported(self, *args, **kwargs):
        raise RuntimeException(None, "this part of the plugin Context is not available in cairn")
    get_resolver = get_type = get_queue_scheduler = get_compiler = get_client = get_environment_id = run_sync = _unsupported
    def get_data_dir(self):
        import tempfile
        return tempfile.gettempdir()

REGISTRY = {}

def plugin(function=None, commands=None, emits_statements=False, allow_unknown=False):
    def register(fn, name=None):
        mod = fn.__module__
        ns = mod[len("inmanta_plugins."):].replace(".", "::") if mod.startswith("inmanta_plugins.") else mod
        REGISTRY[ns + "::" + (name or fn.__name__)] = fn
        return fn
    if function is None:
        return register
    if isinstance(function, str):
        return lambda fn: register(fn, function)
    return register(function)
`;

const MAIN = `
import contextlib, importlib.abc, importlib.util, inspect, io, json, os, sys, types

def _install(name, source, package=False):
    m = types.ModuleType(name)
    if package:
        m.__path__ = []
    sys.modules[name] = m
    exec(compile(source, "<cairn %s>" % name, "exec"), m.__dict__)
    return m

_install("inmanta", "", package=True)
ast = _install("inmanta.ast", AST_SRC)
plugins = _install("inmanta.plugins", PLUGINS_SRC)
sys.modules["inmanta"].ast = ast
sys.modules["inmanta"].plugins = plugins
req = json.load(sys.stdin)
MODULES = req["modules"]
_install("inmanta_plugins", "", package=True)

class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        parts = fullname.split(".")
        if len(parts) != 2 or parts[0] != "inmanta_plugins" or parts[1] not in MODULES:
            return None
        init = os.path.join(MODULES[parts[1]], "plugins", "__init__.py")
        if not os.path.isfile(init):
            return None
        return importlib.util.spec_from_file_location(fullname, init, submodule_search_locations=[os.path.dirname(init)])

sys.meta_path.insert(0, _Finder())

class _Unset(Exception):
    def __init__(self, iid, name):
        Exception.__init__(self, name)
        self.iid = iid
        self.name = name

INSTANCES = {}

class Instance:
    def __init__(self, iid, data):
        object.__setattr__(self, "_iid", iid)
        object.__setattr__(self, "_data", data)
    def __getattr__(self, name):
        attrs = self._data["attrs"]
        if name not in attrs:
            raise ast.NotFoundException(None, name, "could not find attribute %s on %s" % (name, self._data["repr"]))
        slot = attrs[name]
        if "unset" in slot:
            raise _Unset(self._iid, name)
        return decode(slot["v"])
    def __setattr__(self, name, value):
        raise ast.RuntimeException(None, "Can not set attribute %s on %s from a plugin" % (name, self._data["repr"]))
    def __repr__(self):
        return self._data["repr"]
    __str__ = __repr__
    def __eq__(self, other):
        return isinstance(other, Instance) and other._iid == self._iid
    def __hash__(self):
        return hash(self._iid)

def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        if "f" in v:
            return float(v["f"])
        if "m" in v:
            return {k: decode(x) for k, x in v["m"].items()}
        if "i" in v:
            return INSTANCES[v["i"]]
    return v

class _BadValue(Exception):
    pass

def encode(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return {"f": v}
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {"m": {str(k): encode(x) for k, x in v.items()}}
    if isinstance(v, Instance):
        return {"i": v._iid}
    raise _BadValue(repr(v))

def annotation(a):
    if a is inspect.Parameter.empty:
        return {"missing": True}
    if a is plugins.Context:
        return {"context": True}
    if a is None:
        return {"type": "null"}
    if isinstance(a, str):
        return {"type": a}
    return {"bad": "%s (%s)" % (type(a).__name__, a)}

def describe():
    out = []
    for full, fn in plugins.REGISTRY.items():
        sig = inspect.signature(fn)
        params = []
        for p in sig.parameters.values():
            params.append({"name": p.name, "kind": p.kind.name, "default": p.default is not inspect.Parameter.empty, **annotation(p.annotation)})
        ret = annotation(sig.return_annotation)
        if ret.get("missing"):
            ret = {"type": "any"}
        out.append({"name": full, "params": params, "returns": ret})
    return {"plugins": out}

def call():
    for iid, data in req.get("instances", {}).items():
        INSTANCES[int(iid)] = Instance(int(iid), data)
    fn = plugins.REGISTRY[req["plugin"]]
    args = [decode(a) for a in req["args"]]
    kwargs = {k: decode(v) for k, v in req["kwargs"].items()}
    if req.get("context") is not None:
        args.insert(req["context"], plugins.Context(req["plugin"].rsplit("::", 1)[0]))
    value = fn(*args, **kwargs)
    try:
        return {"value": encode(value)}
    except _BadValue as e:
        raise ast.RuntimeException(None, "Invalid value %s returned by the plugin: cairn passes back only null, bools, numbers, strings, lists, dicts and entities" % e)

out = io.StringIO()
answer = None
try:
    with contextlib.redirect_stdout(out):
        for name in req["load"]:
            try:
                importlib.import_module("inmanta_plugins." + name)
            except Exception as e:
                where = os.path.join(MODULES[name], "plugins")
                file = line = None
                tb = e.__traceback__
                while tb is not None:
                    if tb.tb_frame.f_code.co_filename.startswith(where):
                        file, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
                    tb = tb.tb_next
                t = type(e)
                tname = t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__name__)
                answer = {"load_error": {"module": name, "type": tname, "message": str(e), "file": file, "line": line}}
                break
        if answer is None:
            answer = describe() if req["op"] == "describe" else call()
except _Unset as e:
    answer = {"unset": [e.iid, e.name]}
except plugins.PluginException as e:
    answer = {"error": {"class": "plugin", "type": type(e).__name__, "message": str(e.message)}}
except ast.RuntimeException as e:
    answer = {"error": {"class": "runtime", "type": type(e).__name__, "message": str(e.msg)}}
except Exception as e:
    answer = {"error": {"class": "external", "type": type(e).__name__, "message": str(e)}}
answer["stdout"] = out.getvalue()
sys.stdout.write(json.dumps(answer))
`;

/** The program `python3 -c` runs. */
export const RUNNER = `AST_SRC = ${JSON.stringify(AST)}\nPLUGINS_SRC = ${JSON.stringify(PLUGINS)}\n${MAIN}`;
