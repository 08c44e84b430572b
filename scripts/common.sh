# Shared by the scripts: set-up, build and install of the phpclaw module on Debian.
# Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

# Debian packages the build, the tests and the benchmarks need.
PACKAGES=(php8.2-dev php8.2-cli php8.2-opcache php8.2-sqlite3 php8.2-mysql clang libclang-dev
          phpunit valgrind ripgrep hyperfine openssl python3)

setup() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "phpclaw: installing ${missing[*]}"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if ! command -v cargo >/dev/null; then
        if [ -x "$HOME/.cargo/bin/cargo" ]; then
            export PATH="$HOME/.cargo/bin:$PATH"
        else
            echo "phpclaw: cargo not found; install Rust 1.80+ with rustup (https://rustup.rs)" >&2
            exit 1
        fi
    fi
}

# Build the release module and copy it to PHP's extension folder, so that
# `extension=phpclaw` (php.ini or -d) loads it.
build_and_install() {
    (cd "$ROOT" && cargo build --release --quiet)
    local dir
    dir="$(php-config --extension-dir)"
    $SUDO install -m 0644 "$ROOT/target/release/libphpclaw.so" "$dir/phpclaw.so"
    echo "phpclaw: installed $dir/phpclaw.so"
}

# Run PHP with the installed module loaded (unless php.ini already loads it).
php_with_module() {
    if php -m 2>/dev/null | grep -qx phpclaw; then
        php "$@"
    else
        php -d extension=phpclaw "$@"
    fi
}
