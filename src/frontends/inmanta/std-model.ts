/**
 * The bundled `std`, `exec` and `fs` modules: the model part of the real v1 modules that projects use most, trimmed
 * to what our resource kinds can deploy (std holds no resources of its own, as in the real std 7). Owner and
 * group default to null so a deploy changes no ownership unless the model asks for it.
 */

export const STD_MODEL = `
entity Entity:
end
Entity.requires [0:] -- Entity.provides [0:]

implementation none for Entity:
end

typedef hoststring as string matching /^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*$/
typedef package_state as string matching self in ["installed", "removed", "latest"]
typedef service_state as string matching self in ["running", "stopped"]
typedef positive as int matching self >= 0
typedef port as int matching self >= 0 and self < 65536
typedef non_empty_string as string matching /^(.*\\S.*)$/
typedef positive_int as int matching self > 0
typedef negative_int as int matching self < 0
typedef positive_float as float matching self > 0
typedef negative_float as float matching self < 0
typedef alfanum as string matching /^[a-zA-Z0-9]*$/
typedef base64 as string matching std::is_base64_encoded(self)
typedef ipv4_address as string matching std::validate_type("ipaddress.IPv4Address", self)
typedef ipv4_interface as string matching std::validate_type("ipaddress.IPv4Interface", self)
typedef ipv4_network as string matching std::validate_type("ipaddress.IPv4Network", self)

entity ManagedDevice:
    hoststring name
end

entity Host extends ManagedDevice:
    string? ip = null
    bool remote_agent = false
    string remote_user = "root"
    port remote_port = 22
end
index Host(name)
implement Host using none

entity OS:
    string name
    float version = 0.0
    string? python_cmd = "python"
end
implement OS using none
Host.os [1] -- OS
OS.family [0:1] -- OS.member [0:]

unix = OS(name = "unix")
windows = OS(name = "windows")
linux = OS(name = "linux", family = unix)
solaris = OS(name = "solaris", family = unix)
freebsd = OS(name = "freebsd", family = unix)
openbsd = OS(name = "openbsd", family = unix)
macos = OS(name = "macos", family = unix)

entity HostGroup:
    string name
end
Host.host_groups [0:] -- HostGroup.hosts [0:]
implement HostGroup using none

entity MutableString:
    string? value
end
implement MutableString using none
entity MutableInt:
    int? value
end
implement MutableInt using none
entity MutableFloat:
    float? value
end
implement MutableFloat using none
entity MutableBool:
    bool? value
end
implement MutableBool using none

entity ResourceSet:
    string name
end
index ResourceSet(name)
implement ResourceSet using none

entity Resource:
    bool send_event = false
    bool receive_events = true
end
implement Resource using none

entity PurgeableResource extends Resource:
    bool purged = false
    bool purge_on_delete = false
end
implement PurgeableResource using none

entity ManagedResource extends Resource:
    bool managed = true
end
implement ManagedResource using none

entity DiscoveryResource extends Resource:
end
implement DiscoveryResource using none
ResourceSet.resources [0:] -- Resource
`;

export const EXEC_MODEL = `
entity Run extends std::Resource:
    string command
    string creates = ""
    string cwd = ""
    dict environment = {}
    string onlyif = ""
    string path = ""
    string reload = ""
    bool reload_only = false
    number[] returns = [0]
    number timeout = 300
    string unless = ""
    bool skip_on_fail = false
end
Run.host [1] -- std::Host
index Run(host, command)

implementation execHost for Run:
    self.requires = self.host.requires
end
implement Run using execHost
`;

/** The file-system resources as the real \`fs\` module names them; the host relation is one-way there. */
export const FS_MODEL = `
entity File extends std::PurgeableResource, std::ManagedResource:
    string path
    string content = ""
    string? owner = null
    string? group = null
    int mode = 644
    bool reload = false
end
File.host [1] -- std::Host
index File(host, path)
implement File using std::none

entity Directory extends std::PurgeableResource, std::ManagedResource:
    string path
    string? owner = null
    string? group = null
    int mode = 755
    bool reload = false
end
Directory.host [1] -- std::Host
index Directory(host, path)
implement Directory using std::none

entity Symlink extends std::PurgeableResource, std::ManagedResource:
    string source
    string target
    bool reload = false
end
Symlink.host [1] -- std::Host
index Symlink(host, target)
implement Symlink using std::none
`;

export const BUNDLED: Readonly<Record<string, string>> = { std: STD_MODEL, exec: EXEC_MODEL, fs: FS_MODEL };
