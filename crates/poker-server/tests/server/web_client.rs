//! The browser client's state logic under node: `node --test web/test/` (hand state and
//! log from events, pots, bet sizing per structure, seat layouts from 2 to 10 seats,
//! settings, colour contrast). Outside CI, a machine without node skips it. Also checks
//! that the server serves every module the page imports, and nothing else under /js/.

use crate::common;

use common::{Db, DbGuard, Server};
use std::path::{Path, PathBuf};
use std::process::Command;

fn web() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web")
}

#[test]
fn the_client_state_logic_passes_its_node_tests() {
    if Command::new("node").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the client's tests: install node"
        );
        eprintln!("SKIPPED: no node");
        return;
    }
    let out = Command::new("node")
        .args(["--test", "test/"])
        .current_dir(web())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "node --test failed");
    assert!(
        stdout.contains("# fail 0") && !stdout.contains("# pass 0"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_module_the_page_imports_is_served() {
    let guard = DbGuard::new(Db::Sqlite).await.unwrap();
    let mut server = Server::start(&guard.url(), &[]).await;
    let mut modules: Vec<String> = std::fs::read_dir(web().join("js"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    modules.sort();
    assert!(modules.contains(&"main.js".to_string()));
    for name in &modules {
        let (status, body) = server.get(&format!("/js/{name}")).await;
        assert_eq!(status, 200, "/js/{name}");
        let on_disk = std::fs::read_to_string(web().join("js").join(name)).unwrap();
        assert_eq!(body, on_disk, "/js/{name} is the file in web/js");
        // Every import names a module that is served.
        for line in body.lines().filter(|l| l.contains("from \"./")) {
            let target = line
                .split("from \"./")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            assert!(
                modules.iter().any(|m| m == target),
                "{name} imports {target}"
            );
        }
    }
    for bad in ["/js/nope.js", "/js/..%2Fstyle.css", "/app.js"] {
        assert_eq!(server.get(bad).await.0, 404, "{bad}");
    }
    let (_, page) = server.get("/").await;
    assert!(page.contains(r#"<script type="module" src="/js/main.js">"#));
    let (status, console) = server.get("/admin").await;
    assert_eq!(status, 200);
    assert!(console.contains(r#"<script type="module" src="/js/admin.js">"#));
    server.stop().await;
}
