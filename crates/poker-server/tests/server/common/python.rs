//! A Python venv with a package from PyPI, for the tests that compare against a Python
//! tool (made once and shared by test processes).

/// Makes a venv once: under an exclusive lock, marked done only once the install
/// succeeded, made again if it no longer runs (its Python gone, say). Exit code 3: Python
/// cannot make a venv; 4: pip could not install.
const VENV_SETUP: &str = r#"
import fcntl, os, shutil, subprocess, sys, venv
root, name, requirement, module = sys.argv[1:5]
env_dir = os.path.join(root, name + "-venv")
python = os.path.join(env_dir, "bin", "python")
marker = os.path.join(env_dir, "installed-" + requirement)
os.makedirs(root, exist_ok=True)
with open(os.path.join(root, name + "-venv.lock"), "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    if os.path.exists(marker):
        try:
            if subprocess.run([python, "-c", "import " + module]).returncode == 0:
                sys.exit(0)
        except OSError:
            pass
    shutil.rmtree(env_dir, ignore_errors=True)
    try:
        venv.EnvBuilder(with_pip=True).create(env_dir)
    except Exception as e:
        print("cannot make a venv:", e, file=sys.stderr)
        sys.exit(3)
    install = [python, "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
               requirement]
    if subprocess.run(install).returncode != 0:
        sys.exit(4)
    open(marker, "w").close()
"#;

/// A Python venv under `target/NAME-venv` with `requirement` installed from PyPI (made
/// once, shared by test processes), or `None` when it cannot be made here: the test that
/// needs it is then skipped, unless `CI` is set, when it fails (`what` names the test).
pub fn python_venv(
    name: &str,
    requirement: &str,
    module: &str,
    what: &str,
) -> Option<std::path::PathBuf> {
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    let unavailable = |why: String| {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run {what}: {why}"
        );
        eprintln!("SKIPPED: {requirement} is not available: {why}");
        None
    };
    let setup = std::process::Command::new("python3")
        .args(["-c", VENV_SETUP])
        .arg(&target)
        .args([name, requirement, module])
        .output();
    match setup {
        Err(e) => unavailable(format!("python3 does not run: {e}")),
        Ok(out) if !out.status.success() => unavailable(format!(
            "setting up the venv failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
        Ok(_) => Some(target.join(format!("{name}-venv"))),
    }
}
