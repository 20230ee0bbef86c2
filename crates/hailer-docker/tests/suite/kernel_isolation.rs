//! One real docker kernel, checked from inside and outside: who it runs as, what it can write,
//! that it has no network and never sees the token, its labelled objects, notebook copies in
//! and back, and that a stop leaves nothing behind.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use crate::common::{NOTEBOOK, Workspace, engine, kernel_image, labelled_objects};
use hailer_docker::{
    COPIES_MARKER_FILE as MARKER_FILE, CopyLimits, CopyRefusal as Refusal, CopyState, copy_back,
    copy_in,
};
use hailer_docker::{DockerKernel, list_kernels};
use hailer_kernel_bundle as bundle;
use secrecy::ExposeSecret as _;

const OWNER: &str = "0123456789abcdef";

/// Python run in the kernel: one `key=value` line per finding.
const PROBE: &str = r#"
import os, socket
def attempt(action):
    try:
        action()
        return "ok"
    except Exception:
        return "fail"
def tcp(host, port):
    socket.create_connection((host, port), timeout=3).close()
def write(path):
    with open(path, "w") as handle:
        handle.write("x")
status = open("/proc/self/status").read().splitlines()
print("cwd=" + os.getcwd())
print("uid=" + str(os.getuid()))
print("capeff=" + [l.split()[1] for l in status if l.startswith("CapEff")][0])
print("root_write=" + attempt(lambda: write("/opt/planted")))
print("etc_write=" + attempt(lambda: write("/etc/planted")))
print("data_overwrite=" + attempt(lambda: write("/work/data/sales.csv")))
print("data_create=" + attempt(lambda: write("/work/data/planted.txt")))
print("data_delete=" + attempt(lambda: os.remove("/work/data/sales.csv")))
print("data_read=" + open("/work/data/sales.csv").read().splitlines()[0])
print("tmp_write=" + attempt(lambda: write("/tmp/scratch")))
print("home_write=" + attempt(lambda: write(os.path.expanduser("~/scratch"))))
mounts = {line.split()[1]: line.split()[2] for line in open("/proc/mounts")}
print("in_memory=" + ",".join(p for p in ("/tmp", os.path.expanduser("~"), "/work/notebooks") if mounts.get(p) == "tmpfs"))
import marimo._config.manager as marimo_config
print("auto_instantiate=" + str(marimo_config.get_default_config_manager(current_path=None).get_config()["runtime"]["auto_instantiate"]))
print("tcp_gateway=" + attempt(lambda: tcp(GATEWAY, HOST_PORT)))
print("tcp_default_bridge=" + attempt(lambda: tcp("172.17.0.1", HOST_PORT)))
print("tcp_public=" + attempt(lambda: tcp("1.1.1.1", 443)))
print("dns=" + attempt(lambda: socket.getaddrinfo("pypi.org", 443)))
print("env_names=" + ",".join(sorted(os.environ)))
print("env_token=" + str(any(TOKEN in value for value in os.environ.values())))
seen = False
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            seen = seen or TOKEN.encode() in open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            pass
print("cmdline_token=" + str(seen))
print("build_stage=" + str(os.path.exists("/build")))
"#;

/// Python run in the kernel that changes one notebook, makes one, and plants files that must
/// never reach this machine.
const KERNEL_WRITES: &str = r##"
import os
base = "/work/notebooks"
with open(base + "/probe.py", "a") as handle:
    handle.write("# changed in the kernel\n")
with open(base + "/made_in_kernel.py", "w") as handle:
    handle.write(NOTEBOOK)
os.makedirs(base + "/.git/hooks", exist_ok=True)
for planted in ["/.git/hooks/pre-commit.py", "/conftest.py", "/json.py"]:
    with open(base + planted, "w") as handle:
        handle.write(NOTEBOOK)
print("written")
"##;

fn findings(stdout: &str) -> HashMap<String, String> {
    stdout
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

async fn gateway_of(engine: &hailer_docker::Engine, network: &str) -> String {
    let inspect = engine
        .docker()
        .inspect_network(network, None)
        .await
        .unwrap();
    inspect
        .ipam
        .and_then(|ipam| ipam.config)
        .and_then(|configs| configs.into_iter().find_map(|c| c.gateway))
        .unwrap_or_else(|| "172.17.0.1".to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docker_kernel_is_isolated_and_its_notebooks_travel_by_copy() {
    let engine = engine().await;
    let image = kernel_image(&engine).await;
    let ws = Workspace::new();
    std::fs::write(ws.notebooks().join("probe.py"), NOTEBOOK).unwrap();
    std::fs::write(
        ws.notebooks().join("conftest.py"),
        "# the user's own test hooks\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let kernel = DockerKernel::start(&engine, &ws.spec(&image, OWNER))
        .await
        .unwrap();
    eprintln!("kernel ready in {:.1?}", started.elapsed());
    let token = kernel.token.expose_secret().to_owned();
    assert!(kernel.base_url.starts_with("http://127.0.0.1:"));
    assert!(
        ws.token_folders().is_empty(),
        "the token file is deleted once marimo answers"
    );

    // Outside: two containers and one network, labelled; the token in none of them.
    let (containers, networks) = labelled_objects(&engine, &ws.id()).await;
    assert_eq!(containers.len(), 2, "{containers:?}");
    assert_eq!(networks.len(), 1, "{networks:?}");
    assert!(
        containers
            .iter()
            .any(|n| n.starts_with(&format!("hailer-kernel-{}-", ws.id())))
    );
    assert!(
        containers
            .iter()
            .any(|n| n.starts_with(&format!("hailer-fwd-{}-", ws.id())))
    );
    let kernels = list_kernels(&engine, &ws.id()).await.unwrap();
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels[0].owner.as_deref(), Some(OWNER));
    assert_eq!(
        kernels[0].contract.as_deref(),
        Some(bundle::contract().as_str())
    );
    assert_eq!(kernels[0].state, "running");
    for name in &containers {
        let inspect = engine.docker().inspect_container(name, None).await.unwrap();
        let text = serde_json::to_string(&inspect).unwrap();
        assert!(
            !text.contains(&token),
            "the token is in docker inspect of {name}"
        );
    }
    let inspect = engine
        .docker()
        .inspect_container(&kernel.kernel_id, None)
        .await
        .unwrap();
    let args = inspect.args.unwrap_or_default().join(" ");
    assert!(
        args.contains("--token-password-file /run/secrets/hailer-token"),
        "{args}"
    );

    // Copies in: the notebook goes, the user's test hooks stay.
    let client = kernel.client().unwrap();
    let mut state = CopyState::new();
    let report = copy_in(&client, &ws.notebooks(), &mut state).await;
    assert_eq!(report.copied, ["probe.py"]);
    assert!(report.refused.iter().any(|(name, _)| name == "conftest.py"));

    // Inside.
    // A port that listens on every interface of this machine: the kernel must not reach it.
    let listener = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let host_port = listener.local_addr().unwrap().port();
    let gateway = gateway_of(&engine, &networks[0]).await;
    let code =
        format!("TOKEN = {token:?}\nGATEWAY = {gateway:?}\nHOST_PORT = {host_port}\n{PROBE}");
    let notebook = Path::new("/work/notebooks/probe.py");
    let outcome = client
        .execute(notebook, &code, Duration::from_secs(120))
        .await
        .unwrap();
    let found = findings(&outcome.stdout);
    eprintln!("{found:?}");
    assert_eq!(found["cwd"], "/work");
    assert_ne!(found["uid"], "0");
    assert_eq!(found["capeff"], "0000000000000000");
    assert_eq!(found["root_write"], "fail", "the root is read-only");
    assert_eq!(found["etc_write"], "fail");
    assert_eq!(found["data_overwrite"], "fail");
    assert_eq!(found["data_create"], "fail");
    assert_eq!(found["data_delete"], "fail");
    assert_eq!(found["data_read"], "region,amount");
    assert_eq!(found["tmp_write"], "ok");
    assert_eq!(
        found["home_write"], "ok",
        "the home folder is writable scratch space"
    );
    assert_eq!(
        found["in_memory"], "/tmp,/home/analyst,/work/notebooks",
        "scratch space is in memory"
    );
    assert_eq!(
        found["auto_instantiate"], "True",
        "marimo runs a notebook's cells when a browser opens it"
    );
    assert_eq!(
        found["tcp_gateway"], "fail",
        "no route to this machine ({gateway})"
    );
    assert_eq!(
        found["tcp_default_bridge"], "fail",
        "no route to this machine's docker0"
    );
    assert_eq!(found["tcp_public"], "fail", "no internet");
    assert_eq!(found["dns"], "fail", "no DNS");
    assert_eq!(found["env_token"], "False");
    assert_eq!(found["cmdline_token"], "False");
    assert_eq!(
        found["build_stage"], "False",
        "the build stage stays out of the image"
    );
    for name in found["env_names"].split(',') {
        assert!(
            [
                "HOME",
                "PATH",
                "LANG",
                "PYTHONDONTWRITEBYTECODE",
                "PYTHONUNBUFFERED",
                "HOSTNAME",
                // the terminal's size, which marimo's kernel sets for itself under Python 3.13
                "COLUMNS",
                "LINES",
            ]
            .contains(&name)
                || name.starts_with("MARIMO")
                || name.starts_with("_"),
            "unexpected variable {name} in the kernel"
        );
    }
    assert_eq!(
        std::fs::read_to_string(ws.data().join("sales.csv")).unwrap(),
        "region,amount\nnorth,1\n"
    );
    assert!(!ws.data().join("planted.txt").exists());

    // Copies back: the changed and the new notebook come back, the planted files do not.
    let code = format!("NOTEBOOK = {NOTEBOOK:?}\n{KERNEL_WRITES}");
    let outcome = client
        .execute(notebook, &code, Duration::from_secs(60))
        .await
        .unwrap();
    assert!(outcome.stdout.contains("written"), "{outcome:?}");
    let report = copy_back(
        &client,
        &ws.notebooks(),
        &ws.state(),
        &mut state,
        CopyLimits::last(),
    )
    .await;
    assert_eq!(
        report.copied,
        ["made_in_kernel.py", "probe.py"],
        "{report:?}"
    );
    assert!(
        std::fs::read_to_string(ws.notebooks().join("probe.py"))
            .unwrap()
            .ends_with("# changed in the kernel\n")
    );
    assert_eq!(
        std::fs::read_to_string(ws.notebooks().join("conftest.py")).unwrap(),
        "# the user's own test hooks\n"
    );
    assert!(!ws.notebooks().join(".git").exists());
    assert!(!ws.notebooks().join("json.py").exists());
    assert!(
        report
            .refused
            .contains(&("conftest.py".to_owned(), Refusal::ToolFile))
    );
    assert!(report.refused.iter().any(|(name, _)| name == ".git/"));
    assert!(ws.state().join(MARKER_FILE).exists());
    let again = copy_back(
        &client,
        &ws.notebooks(),
        &ws.state(),
        &mut state,
        CopyLimits::background(),
    )
    .await;
    assert!(
        again.copied.is_empty(),
        "unchanged notebooks are skipped: {again:?}"
    );

    // Stop: nothing labelled remains, and the token no longer opens anything.
    let removal = kernel.stop().await;
    assert!(removal.is_complete(), "{}", removal.summary());
    assert_eq!(removal.removed.len(), 3, "{removal:?}");
    let (containers, networks) = labelled_objects(&engine, &ws.id()).await;
    assert!(
        containers.is_empty() && networks.is_empty(),
        "{containers:?} {networks:?}"
    );
    assert!(ws.token_folders().is_empty());
    let after = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap()
        .get(format!("{}/api/sessions", kernel.base_url))
        .bearer_auth(&token)
        .send()
        .await;
    assert!(after.is_err(), "the kernel still answers after stop");
    assert!(
        kernel.stop().await.removed.is_empty(),
        "a second stop finds nothing"
    );
}
