/**
 * The bundled `std`, `exec` and `fs` modules: the model part of the real v1 modules that projects use most, trimmed
 * to what our resource kinds can deploy. Owner and group default to null so a deploy changes no ownership
 * unless the model asks for it.
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

entity Host:
    hoststring name
    string? ip = null
end
index Host(name)
implement Host using none

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

entity File extends PurgeableResource, ManagedResource:
    string path
    string content = ""
    string? owner = null
    string? group = null
    int mode = 644
    bool reload = false
end
File.host [1] -- Host.files [0:]
index File(host, path)
implement File using none

entity Directory extends PurgeableResource, ManagedResource:
    string path
    string? owner = null
    string? group = null
    int mode = 755
    bool reload = false
end
Directory.host [1] -- Host.directories [0:]
index Directory(host, path)
implement Directory using none

entity Symlink extends PurgeableResource, ManagedResource:
    string source
    string target
    bool reload = false
end
Symlink.host [1] -- Host.symlinks [0:]
index Symlink(host, target)
implement Symlink using none

entity Package extends PurgeableResource, ManagedResource:
    string name
    package_state state = "installed"
    bool reload = false
end
Package.host [1] -- Host.packages [0:]
index Package(host, name)
implement Package using none
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
