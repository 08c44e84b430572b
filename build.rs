//! Records which PHP the module was built against, for `php --ri phpclaw`.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PHP_CONFIG");
    let php_config = std::env::var("PHP_CONFIG").unwrap_or_else(|_| "php-config".into());
    let version = std::process::Command::new(php_config)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=PHPCLAW_BUILT_FOR_PHP={version}");
}
