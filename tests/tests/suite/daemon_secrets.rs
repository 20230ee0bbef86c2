//! hailerd and the `hailer` client keep no secret where the user's other processes can read it.
//! Run as an ordinary user (made here) with keys, passwords and a proxy's credentials in the
//! shell, an unsafe-local turn whose code reads hailerd's and the client's `/proc` environment,
//! its own environment and the runtime file finds none of them, and none reaches the model or
//! the conversation store; hailerd's environment holds none of the keys at all, and the audit
//! trail and the log mask the proxy's password.

use std::path::PathBuf;
use std::process::{Command, Output};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::system::UserArea;
use serde_json::json;

/// The ordinary user the test runs Hailer as.
const USER: &str = "hailer-probe";

/// Secrets of the user's shell, each with a value found nowhere else.
const PLANTED: [(&str, &str); 5] = [
    ("OPENAI_API_KEY", "sk-planted-openai-4b1e"),
    ("AWS_SECRET_ACCESS_KEY", "planted-aws-9c2d"),
    ("GITHUB_TOKEN", "planted-github-7f30"),
    ("MY_PASSWORD", "planted-password-1a6b"),
    ("SCRIPTED_KEY", "planted-provider-key-5e88"),
];

/// A proxy whose address carries credentials, and its password.
const PROXY: (&str, &str) = ("HTTPS_PROXY", "http://user:s3cretpass@proxy.example:3128");
const PROXY_PASSWORD: &str = "s3cretpass";

/// What the agent's code does: read the environment of every hailerd and `hailer` client (and
/// who owns it) run by this user, its own, and the runtime file. Its comment names the proxy, for the trail.
const PROBE: &str = r#"
# through http://user:s3cretpass@proxy.example:3128
import os, pathlib
seen = []
for proc in pathlib.Path("/proc").iterdir():
    if not proc.name.isdigit():
        continue
    try:
        program = (proc / "cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        continue
    name = program.rsplit(b"/", 1)[-1].decode(errors="replace")
    if name not in ("hailerd", "hailer"):
        continue
    # Only this user's: other users' processes are closed to it anyway.
    status = (proc / "status").read_text()
    uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
    if int(uid) != os.getuid():
        continue
    environ = proc / "environ"
    seen.append(f"owner of {name}'s environ: {environ.stat().st_uid}")
    try:
        seen.append(f"environ of {name}: " + environ.read_bytes().decode(errors="replace"))
    except OSError as error:
        seen.append(f"environ of {name} unreadable: " + type(error).__name__)
seen.append("kernel proxy: " + os.environ.get("HTTPS_PROXY", "absent"))
runtime = pathlib.Path(os.environ["HAILER_HOME"]) / "run" / "hailerd.json"
seen.append("runtime file: " + runtime.read_text())
seen.append("kernel environment: " + " ".join(sorted(os.environ)))
print("\n".join(seen))
"#;

/// Everything the user needs, in a folder the user owns: the binaries, uv, the wheels, a home
/// for Hailer and a workspace.
struct Area(UserArea);

impl Area {
    fn new() -> Self {
        Self(UserArea::with_uv_and_wheelhouse(USER))
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.path(relative)
    }

    /// `hailer ARGS` in the workspace as the user, from a shell holding the planted secrets.
    fn hailer(&self, args: &[&str]) -> Output {
        let mut command = self.0.hailer(args);
        command
            .env("HAILER_WHEELHOUSE", self.path("wheelhouse"))
            .env(PROXY.0, PROXY.1)
            .env("NO_PROXY", "127.0.0.1,localhost");
        for (name, value) in PLANTED {
            command.env(name, value);
        }
        command.output().unwrap()
    }
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsafe_local_kernel_finds_no_secret_of_the_users_shell_in_hailerd_or_the_client() {
    let script = Script::new()
        .reply(Reply::tool_call("marimo_execute", json!({"code": PROBE})))
        .reply_text("I looked.");
    let model = ScriptedModel::start(script).await.unwrap();
    let area = tokio::task::block_in_place(Area::new);
    let init = tokio::task::block_in_place(|| area.hailer(&["init", "--kernel", "unsafe-local"]));
    assert!(init.status.success(), "{}", said(&init));
    let toml_path = area.path("workspace/hailer.toml");
    let toml = std::fs::read_to_string(&toml_path)
        .unwrap()
        .replace("[model]\n", "[model]\nprovider = \"scripted\"\n");
    std::fs::write(
        &toml_path,
        format!(
            "{toml}\n[model_providers.scripted]\nbase_url = \"{}\"\nenv_key = \"SCRIPTED_KEY\"\nwire_api = \"chat\"\nstream = true\n",
            model.base_url()
        ),
    )
    .unwrap();

    let trusted = tokio::task::block_in_place(|| area.hailer(&["trust", "--yes"]));
    assert!(trusted.status.success(), "{}", said(&trusted));
    let ran = tokio::task::block_in_place(|| area.hailer(&["run", "Read what you can"]));
    assert!(ran.status.success(), "{}", said(&ran));

    // hailerd's own environment, read as root, holds none of the shell's secrets.
    let runtime: serde_json::Value =
        serde_json::from_slice(&std::fs::read(area.path("hailer-home/run/hailerd.json")).unwrap())
            .unwrap();
    let pid = runtime["pid"].as_u64().unwrap();
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let environ = String::from_utf8_lossy(&environ);
    assert!(environ.contains("HAILER_HOME="), "{environ}");
    for (name, value) in PLANTED {
        assert!(
            !environ.contains(value) && !environ.contains(&format!("{name}=")),
            "{name} is in hailerd's environment: {environ}"
        );
    }

    // What the code saw went to the model as the tool's result.
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{}", said(&ran));
    assert_eq!(
        requests[0].bearer_token(),
        Some("planted-provider-key-5e88"),
        "the key reached the model endpoint as the credential"
    );
    let seen = requests[1].body.to_string();
    assert!(
        seen.contains("environ of hailerd unreadable: PermissionError"),
        "hailerd's environment was readable: {seen}"
    );
    // The client that ran the turn is not dumpable: its /proc files are root's.
    assert!(
        seen.contains("owner of hailer's environ: 0"),
        "the client's environment is the user's: {seen}"
    );
    assert!(
        seen.contains("environ of hailer unreadable: PermissionError"),
        "the client's environment was readable: {seen}"
    );
    assert!(seen.contains("kernel proxy: absent"), "{seen}");
    assert!(seen.contains("runtime file: "), "{seen}");
    // The conversation store, its write-ahead log included.
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(area.path("workspace/.hailer")).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("threads.sqlite")
        {
            stored.extend(std::fs::read(&path).unwrap());
        }
    }
    let stored = String::from_utf8_lossy(&stored);
    assert!(stored.contains("runtime file"), "the result was not stored");
    for (name, value) in PLANTED {
        assert!(!seen.contains(value), "{name} reached the model: {seen}");
        assert!(!stored.contains(value), "{name} was stored");
    }

    // The trail holds the code that ran, the proxy's password masked; the log never holds it.
    let trail = std::fs::read_to_string(area.path("workspace/.hailer/audit.jsonl")).unwrap();
    assert!(
        trail.contains("# through [redacted]"),
        "the code is not in the trail, masked: {trail}"
    );
    assert!(!trail.contains(PROXY_PASSWORD), "{trail}");
    let mut log = String::new();
    for entry in std::fs::read_dir(area.path("hailer-home/state/logs")).unwrap() {
        log.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
    }
    assert!(!log.is_empty());
    assert!(!log.contains(PROXY_PASSWORD), "{log}");
}

#[test]
fn hailerd_started_from_a_shell_with_secrets_drops_them_at_once() {
    let home = tempfile::tempdir().unwrap();
    let mut daemon = Command::new(hailer_tests::bins::path("hailerd"))
        .env("HAILER_HOME", home.path())
        .env("MY_PASSWORD", "planted-password-1a6b")
        .env("DATABASE_URL", "postgres://user:planted@db/x")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let runtime_file = home.path().join("run").join("hailerd.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !runtime_file.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "hailerd did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The same process, started again in place with the minimal environment.
    let environ = std::fs::read(format!("/proc/{}/environ", daemon.id())).unwrap();
    let environ = String::from_utf8_lossy(&environ);
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert!(environ.contains("HAILER_HOME="), "{environ}");
    assert!(!environ.contains("planted"), "{environ}");
    assert!(!environ.contains("MY_PASSWORD"), "{environ}");
}
