//! Records which PHP the module was built against, for `php --ri phpclaw`, and compiles
//! db_query's C shim (src/php/tools/db_query_shim.c) against that PHP's headers.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PHP_CONFIG");
    let php_config = std::env::var("PHP_CONFIG").unwrap_or_else(|_| "php-config".into());
    let run = |arg: &str| {
        std::process::Command::new(&php_config)
            .arg(arg)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let version = run("--version").unwrap_or_default();
    println!("cargo:rustc-env=PHPCLAW_BUILT_FOR_PHP={version}");
    // The shim is part of the bindings only: the pure-Rust core builds without PHP.
    if std::env::var_os("CARGO_FEATURE_PHP").is_some() {
        let shim = "src/php/tools/db_query_shim.c";
        println!("cargo:rerun-if-changed={shim}");
        let includes = run("--includes").expect("php-config --includes failed");
        let mut build = cc::Build::new();
        build.file(shim).warnings(true);
        for flag in includes.split_whitespace() {
            if let Some(dir) = flag.strip_prefix("-I") {
                build.include(dir);
            }
        }
        build.compile("phpclaw_db_query_shim");
    }
}
