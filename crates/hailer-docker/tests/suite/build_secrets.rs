//! Package index credentials, a CA file and a proxy password reach the kernel image build only
//! as BuildKit secrets: the build installs through them from a company-like index, and none of
//! them is found in any layer of the image or of its build stage, in the history, the image's
//! configuration, the engine's build cache records or the build's output.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use bollard::grpc::build::{ImageBuildFrontendOptions, ImageBuildLoadInput, SecretSource};
use bollard::grpc::driver::Build as _;
use bollard::grpc::driver::moby::Moby;
use bollard::query_parameters::{PruneBuildOptions, RemoveImageOptions};
use futures_util::StreamExt as _;
use hailer_docker::Engine;
use hailer_docker::{BuildOptions, CA_SECRET, PIP_CONF_SECRET};
use hailer_kernel_bundle as bundle;

use crate::common::{base_image, engine};

const SERVER: &str = include_str!("index_and_proxy.py");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_credentials_a_ca_file_and_a_proxy_password_stay_out_of_the_image_and_cache() {
    let engine = engine().await;
    let unique = format!("{}-{}", std::process::id(), rand_suffix());
    let tag = format!("hailer-secrets-test:{unique}");
    let stage_tag = format!("hailer-secrets-test:{unique}-build-stage");
    let dir = tempfile::tempdir().unwrap();

    // A company's index: HTTPS from a private CA, a user and password, behind a proxy that has
    // its own. The build reaches the host on the engine's bridge network.
    let host = bridge_gateway(&engine).await;
    let (ca, ca_line) = certificates(dir.path(), &host);
    let index_user = format!("indexuser{unique}");
    let index_password = format!("indexpw{unique}");
    let proxy_user = format!("proxyuser{unique}");
    let proxy_password = format!("proxypw{unique}");
    let record = dir.path().join("record.json");
    let wheelhouse = std::env::var("HAILER_TEST_IMAGE_WHEELHOUSE").unwrap_or_else(|_| {
        panic!("HAILER_TEST_IMAGE_WHEELHOUSE is not set: source the test environment")
    });
    let server = Server::start(
        dir.path(),
        &[
            &wheelhouse,
            &dir.path().join("index.pem").display().to_string(),
            &dir.path().join("index.key").display().to_string(),
            &host,
            &format!("{index_user}:{index_password}"),
            &format!("{proxy_user}:{proxy_password}"),
            &record.display().to_string(),
        ],
    );
    let pip_conf = dir.path().join("company-pip.conf");
    std::fs::write(
        &pip_conf,
        format!(
            "[global]\nindex-url = https://{index_user}:{index_password}@{host}:{}/simple\n\
             proxy = http://{proxy_user}:{proxy_password}@{host}:{}\ntimeout = 60\n",
            server.ports.0, server.ports.1
        ),
    )
    .unwrap();
    let secrets = [
        ("the index user", index_user.clone()),
        ("the index password", index_password.clone()),
        ("the proxy user", proxy_user.clone()),
        ("the proxy password", proxy_password.clone()),
        ("the CA file", ca_line.clone()),
    ];

    let cache_before = build_cache_ids();
    let options = BuildOptions {
        tag: tag.clone(),
        base_image: Some(base_image()),
        base_digest: None,
        pip_config: Some(pip_conf.clone()),
        host_pip_config: None,
        pip_cert: Some(ca.clone()),
        wheelhouse: None,
        // Each run installs through the index again: a cached step would not ask for secrets.
        no_cache: true,
    };
    let lines = std::sync::Mutex::new(Vec::new());
    let progress = |report: hailer_marimo::Report<'_>| {
        if let Some(line) = report.text() {
            lines.lock().unwrap().push(line.to_owned());
        }
    };
    let built = hailer_docker::build(&engine, &options, &bundle::contract(), &progress).await;
    let said = lines.lock().unwrap().join("\n");
    let outcome = async {
        built.unwrap_or_else(|error| panic!("the build failed: {error}\n{said}"));

        // The build used all three: through the proxy, into the index, trusting the CA.
        let counted: HashMap<String, u64> =
            serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
        assert!(counted["proxy_ok"] >= 1, "{counted:?}");
        assert!(counted["index_ok"] >= 10, "{counted:?}");
        assert!(counted["wheels"] >= 10, "{counted:?}");
        assert!(
            said.contains("Installing the kernel's packages from the package index"),
            "{said}"
        );
        assert!(said.contains("with BuildKit"), "{said}");
        // pip names the index it reads; the user sees it with its credentials masked.
        assert!(
            said.contains(&format!("Looking in indexes: https://****@{host}:")),
            "{said}"
        );
        assert!(said.contains("build secrets: pip.conf, ca.pem"), "{said}");

        // The build stage, where the secrets were mounted, as an image of its own: its steps
        // come from the build cache the build just made.
        build_stage(&engine, &options, &stage_tag, &pip_conf, &ca).await;

        let mut found = Vec::new();
        for image in [&tag, &stage_tag] {
            let (hits, layers) = saved_image_hits(&engine, image, &secrets).await;
            assert!(layers >= 3, "{image}: only {layers} layers saved");
            found.extend(
                hits.into_iter()
                    .map(|what| format!("{what} in a layer of {image}")),
            );
            let history = engine.docker().image_history(image).await.unwrap();
            let history = serde_json::to_string(&history).unwrap();
            found.extend(hits_in(
                history.as_bytes(),
                &secrets,
                &format!("the history of {image}"),
            ));
            let inspect = engine.docker().inspect_image(image).await.unwrap();
            let inspect = serde_json::to_string(&inspect).unwrap();
            found.extend(hits_in(
                inspect.as_bytes(),
                &secrets,
                &format!("the configuration of {image}"),
            ));
        }
        let records = build_cache();
        assert!(
            records
                .iter()
                .any(|record| record["Description"].as_str().is_some_and(
                    |d| d.contains("Installing the kernel's packages from the package index")
                )),
            "the build cache does not list the install step: {records:#?}"
        );
        let records = serde_json::to_string(&records).unwrap();
        found.extend(hits_in(
            records.as_bytes(),
            &secrets,
            "the build cache records",
        ));
        found.extend(hits_in(said.as_bytes(), &secrets, "the build's output"));
        assert!(found.is_empty(), "{found:#?}");
    };
    let result = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(outcome)).await;
    drop(server);
    for image in [&tag, &stage_tag] {
        let _ = engine
            .docker()
            .remove_image(image, None::<RemoveImageOptions>, None)
            .await;
    }
    remove_new_build_cache(&engine, &cache_before).await;
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

fn rand_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{nanos:08x}")
}

/// The address containers on the engine's default bridge reach this host at.
async fn bridge_gateway(engine: &Engine) -> String {
    let bridge = engine
        .docker()
        .inspect_network(
            "bridge",
            None::<bollard::query_parameters::InspectNetworkOptions>,
        )
        .await
        .unwrap();
    let config = bridge
        .ipam
        .and_then(|ipam| ipam.config)
        .and_then(|configs| configs.into_iter().next())
        .expect("the bridge network has an address range");
    if let Some(gateway) = config.gateway.filter(|g| !g.is_empty()) {
        return gateway;
    }
    // The engine's default: the first address of the range.
    let subnet = config.subnet.expect("the bridge network has a subnet");
    let base: std::net::Ipv4Addr = subnet.split('/').next().unwrap().parse().unwrap();
    std::net::Ipv4Addr::from(u32::from(base) + 1).to_string()
}

/// A private CA (`ca.pem`) and the index's certificate for `host` signed by it; returns the
/// CA file and one line of its body, to look for.
fn certificates(dir: &Path, host: &str) -> (PathBuf, String) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap_or_else(|e| panic!("this test needs openssl: {e}"));
        assert!(out.status.success(), "openssl {args:?}: {out:?}");
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-subj",
        "/CN=Hailer test company CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "index.key",
        "-out",
        "index.csr",
        "-subj",
        "/CN=index",
    ]);
    std::fs::write(
        dir.join("index.ext"),
        format!(
            "subjectAltName=IP:{host}\nbasicConstraints=CA:FALSE\n\
             keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n\
             authorityKeyIdentifier=keyid\n"
        ),
    )
    .unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "index.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "index.ext",
        "-out",
        "index.pem",
    ]);
    let ca = dir.join("ca.pem");
    let text = std::fs::read_to_string(&ca).unwrap();
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with("-----")).collect();
    (ca, body[body.len() / 2].to_owned())
}

/// The index and proxy, stopped when dropped.
struct Server {
    child: Child,
    /// The index's port, the proxy's port.
    ports: (u16, u16),
}

impl Server {
    fn start(dir: &Path, args: &[&str]) -> Self {
        let script = dir.join("index_and_proxy.py");
        std::fs::write(&script, SERVER).unwrap();
        let python = std::env::var("HAILER_TEST_PYTHON").unwrap_or_else(|_| {
            panic!("HAILER_TEST_PYTHON is not set: run scripts/test-prereqs.sh and source its env")
        });
        let mut child = Command::new(python)
            .arg(&script)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the test index: {e}"));
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let ports: serde_json::Value = serde_json::from_str(&first)
            .unwrap_or_else(|e| panic!("the index did not start ({e}): {first:?}"));
        let port = |name: &str| u16::try_from(ports[name].as_u64().unwrap()).unwrap();
        Self {
            ports: (port("index"), port("proxy")),
            child,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Builds the Dockerfile's build stage alone as `tag`, with the same context, arguments and
/// secrets; its steps come from the build cache.
async fn build_stage(
    engine: &Engine,
    options: &BuildOptions,
    tag: &str,
    pip_conf: &Path,
    ca: &Path,
) {
    let context = hailer_docker::gather(options).unwrap().to_tar().unwrap();
    let mut frontend = ImageBuildFrontendOptions::builder()
        .target("build")
        .pull(false);
    for (name, value) in options.build_args(&bundle::contract()) {
        frontend = frontend.buildarg(&name, &value);
    }
    frontend = frontend
        .set_secret(PIP_CONF_SECRET, &SecretSource::File(pip_conf.to_path_buf()))
        .set_secret(CA_SECRET, &SecretSource::File(ca.to_path_buf()));
    Moby::new(engine.docker())
        .docker_build(
            tag,
            frontend.build(),
            ImageBuildLoadInput::Upload(context.into()),
            None,
            None,
        )
        .await
        .unwrap_or_else(|e| panic!("building the build stage failed: {e}"));
}

/// Which `secrets` the saved image `image` holds anywhere (its layers are saved uncompressed),
/// and how many layers were saved.
async fn saved_image_hits(
    engine: &Engine,
    image: &str,
    secrets: &[(&str, String)],
) -> (Vec<String>, usize) {
    let longest = secrets.iter().map(|(_, s)| s.len()).max().unwrap();
    let finders: Vec<_> = secrets
        .iter()
        .map(|(what, s)| {
            (
                *what,
                memchr::memmem::Finder::new(s.as_bytes()).into_owned(),
            )
        })
        .collect();
    let layer = memchr::memmem::Finder::new(b"layer.tar\0");
    let mut found = Vec::new();
    let mut layers = 0;
    let mut carry: Vec<u8> = Vec::new();
    let mut stream = engine.docker().export_image(image);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        let mut window = std::mem::take(&mut carry);
        let fresh = window.len();
        window.extend_from_slice(&chunk);
        for (what, finder) in &finders {
            if finder.find(&window).is_some() && !found.contains(&what.to_string()) {
                found.push((*what).to_owned());
            }
        }
        // A name that ends in the carry was counted with the chunk before.
        layers += layer
            .find_iter(&window)
            .filter(|&at| at + b"layer.tar\0".len() > fresh)
            .count();
        let keep = window.len().saturating_sub(longest);
        carry = window.split_off(keep);
    }
    (found, layers)
}

fn hits_in(text: &[u8], secrets: &[(&str, String)], place: &str) -> Vec<String> {
    secrets
        .iter()
        .filter(|(_, s)| memchr::memmem::find(text, s.as_bytes()).is_some())
        .map(|(what, _)| format!("{what} in {place}"))
        .collect()
}

/// The engine's build cache records, as `docker system df -v` lists them (the engine's API
/// version here lists them in a form the client library no longer reads).
fn build_cache() -> Vec<serde_json::Value> {
    let out = Command::new("docker")
        .args(["system", "df", "-v", "--format", "{{json .BuildCache}}"])
        .output()
        .unwrap_or_else(|e| panic!("this test needs the docker command: {e}"));
    assert!(out.status.success(), "docker system df: {out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn build_cache_ids() -> Vec<String> {
    build_cache()
        .iter()
        .filter_map(|record| record["ID"].as_str().map(str::to_owned))
        .collect()
}

/// Removes the build cache records made since `before` that nothing uses, newest first: a
/// record goes only once the records made on top of it are gone.
async fn remove_new_build_cache(engine: &Engine, before: &[String]) {
    for _round in 0..5 {
        let mut new: Vec<serde_json::Value> = build_cache()
            .into_iter()
            .filter(|record| {
                record["ID"]
                    .as_str()
                    .is_some_and(|id| !before.iter().any(|old| old == id))
            })
            .collect();
        if new.is_empty() {
            return;
        }
        new.sort_by(|a, b| b["CreatedAt"].as_str().cmp(&a["CreatedAt"].as_str()));
        for record in new {
            let id = record["ID"].as_str().unwrap_or_default().to_owned();
            let options = PruneBuildOptions {
                all: Some(true),
                filters: Some(HashMap::from([("id".to_owned(), vec![id])])),
                ..Default::default()
            };
            let _ = engine.docker().prune_build(Some(options)).await;
        }
    }
}
