# Shared by the scripts: set-up, build and install of the phpclaw module on Debian.
# Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

# Debian packages the build, the tests and the benchmarks need.
PACKAGES=(php8.2-dev git php8.2-cli php8.2-opcache php8.2-sqlite3 php8.2-mysql clang libclang-dev
          phpunit valgrind ripgrep hyperfine openssl python3 mariadb-server
          gawk tree file)

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
    $SUDO install -m 0644 "${CARGO_TARGET_DIR:-$ROOT/target}/release/libphpclaw.so" "$dir/phpclaw.so"
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

# Start a throw-away MariaDB server on loopback for the db_query tests and export
# PHPCLAW_MYSQL_DSN / _USER / _PASSWORD. Its data folder lives in a temp dir, it listens on
# 127.0.0.1 only (a free port) and it is shut down and removed when the calling script exits.
# Debian's service scripts are not used: in containers policy-rc.d forbids starting services.
# Does nothing when PHPCLAW_MYSQL_DSN is already set (a server of your own).
start_mariadb() {
    if [ -n "${PHPCLAW_MYSQL_DSN:-}" ]; then
        echo "phpclaw: using the MariaDB server at $PHPCLAW_MYSQL_DSN"
        return
    fi
    MARIADB_DIR="$(mktemp -d /tmp/phpclaw-mariadb.XXXXXX)"
    local port user
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    user="$(id -un)"
    mariadb-install-db --no-defaults --user="$user" --datadir="$MARIADB_DIR/data" \
        --auth-root-authentication-method=socket --skip-test-db >"$MARIADB_DIR/install.log" 2>&1 \
        || { cat "$MARIADB_DIR/install.log" >&2; return 1; }
    mariadbd --no-defaults --user="$user" --datadir="$MARIADB_DIR/data" \
        --socket="$MARIADB_DIR/sock" --pid-file="$MARIADB_DIR/pid" --bind-address=127.0.0.1 \
        --port="$port" --skip-name-resolve --innodb-buffer-pool-size=64M \
        --log-error="$MARIADB_DIR/error.log" >/dev/null 2>&1 &
    trap stop_mariadb EXIT
    local i
    for i in $(seq 1 100); do
        mariadb-admin --no-defaults --socket="$MARIADB_DIR/sock" -u "$user" ping >/dev/null 2>&1 && break
        sleep 0.2
    done
    PHPCLAW_MYSQL_PASSWORD="$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
    mariadb --no-defaults --socket="$MARIADB_DIR/sock" -u "$user" <<SQL || { cat "$MARIADB_DIR/error.log" >&2; return 1; }
CREATE DATABASE phpclaw_test;
CREATE USER 'phpclaw'@'127.0.0.1' IDENTIFIED BY '$PHPCLAW_MYSQL_PASSWORD';
GRANT ALL ON phpclaw_test.* TO 'phpclaw'@'127.0.0.1';
SQL
    export PHPCLAW_MYSQL_DSN="mysql:host=127.0.0.1;port=$port;dbname=phpclaw_test"
    export PHPCLAW_MYSQL_USER=phpclaw PHPCLAW_MYSQL_PASSWORD
    echo "phpclaw: MariaDB $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$port"
}

stop_mariadb() {
    [ -n "${MARIADB_DIR:-}" ] || return 0
    if [ -f "$MARIADB_DIR/pid" ]; then
        kill "$(cat "$MARIADB_DIR/pid")" 2>/dev/null || true
        local i
        for i in $(seq 1 50); do [ -f "$MARIADB_DIR/pid" ] || break; sleep 0.2; done
    fi
    rm -rf "$MARIADB_DIR"
}
