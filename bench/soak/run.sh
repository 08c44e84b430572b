#!/usr/bin/env bash
# php-fpm + nginx soak: the module in a php-fpm pool behind nginx, under sustained mixed tool
# calls, checked for errors, memory growth, descriptor leaks, stray children and temp files.
#
#   bench/soak/run.sh [SECONDS]        default 60 (CI); e.g. 1800 by hand
#   bench/soak/run.sh --self-check     prove the checks fail: one short run per injected fault
#
# Everything lives in one mktemp folder: nginx and php-fpm (Debian's nginx-light and
# php8.2-fpm, installed when missing) started here in the foreground on 127.0.0.1 with their
# own configuration, logs and temp folders (no service manager, no system configuration), a
# loopback HTTP server for http_request, a workspace, and the pool's temp folder. The pool has
# 4 long-lived workers (pm = static, pm.max_requests = 0) with the module loaded: PHPCLAW_SO,
# else the installed phpclaw.so. MariaDB comes from scripts/common.sh (start_mariadb; its
# PHPCLAW_MYSQL_DSN when already set); without it the MariaDB endpoint is left out, saying so.
# bench/soak/load.py drives the endpoints in bench/soak/www/ and judges the run. Exit 1 on
# failure. Processes and folders are removed on every exit.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/../../scripts/common.sh"

SECONDS_TO_RUN=60
SELF_CHECK=0
case "${1:-}" in
    '') ;;
    --self-check) SELF_CHECK=1 ;;
    *[!0-9]*) echo "usage: $0 [SECONDS | --self-check]" >&2; exit 2 ;;
    *) SECONDS_TO_RUN=$1 ;;
esac

# The self-check: each fault the endpoints inject (www/_soak.php, inject()) must make a short
# run fail for the reason it injects.
if [ "$SELF_CHECK" = 1 ]; then
    status=0
    for check in "error:requests failed" "leak:RSS rises" "fd:descriptors when idle" \
        "zombie:zombie children not reaped" "tmp:temp files left"; do
        fault="${check%%:*}"
        out="$(SOAK_INJECT=$fault "$0" 40 2>&1)" && rc=0 || rc=$?
        reason="$(printf '%s\n' "$out" | sed -n '/soak FAILED/,$p' | grep -F -m1 -- "${check#*:}" || true)"
        if [ "$rc" = 1 ] && [ -n "$reason" ]; then
            echo "self-check: injected $fault -> failed as it must:$reason"
        else
            echo "self-check: injected $fault -> NOT caught (exit $rc)"; printf '%s\n' "$out" | tail -30
            status=1
        fi
    done
    exit $status
fi

FPM="$(command -v php-fpm8.2 || true)"
if [ -z "$FPM" ] || ! command -v nginx >/dev/null; then
    echo "soak: installing php8.2-fpm nginx-light"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq php8.2-fpm nginx-light >/dev/null
    FPM="$(command -v php-fpm8.2)"
fi
NGINX="$(command -v nginx)"
SO="${PHPCLAW_SO:-$(php-config --extension-dir)/phpclaw.so}"
[ -f "$SO" ] || { echo "soak: no module at $SO (set PHPCLAW_SO or run scripts/test.sh)" >&2; exit 2; }
SO="$(cd "$(dirname "$SO")" && pwd)/$(basename "$SO")"

DIR="$(mktemp -d /tmp/phpclaw-soak.XXXXXX)"
PIDS=()      # stopped with TERM (the Python processes: background jobs of a script ignore QUIT)
QUIT_PIDS=() # php-fpm and nginx: QUIT is their graceful stop
cleanup() {
    local pid
    # Whatever is left after 10 s is killed.
    for pid in "${QUIT_PIDS[@]}"; do kill -QUIT "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    PIDS+=("${QUIT_PIDS[@]}")
    for _ in $(seq 1 50); do
        local alive=0
        for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.2
    done
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    stop_mariadb
    rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

mkdir -p "$DIR"/{ws,tmp,log,nginx}
MYSQL_NOTE=""
if command -v mariadbd >/dev/null && start_mariadb >"$DIR/log/mariadb-start.log" 2>&1; then
    trap cleanup EXIT # start_mariadb sets its own trap; ours stops it too
    tail -n 1 "$DIR/log/mariadb-start.log"
    ENDPOINTS="shell,file_read,file_write,file_edit,code_search,project_info,zip_package,http_request,db_sqlite,db_mariadb,router,adapter"
else
    trap cleanup EXIT
    MYSQL_NOTE="soak: no MariaDB server (mariadbd missing or failed to start): db_mariadb is left out"
    echo "$MYSQL_NOTE"
    cat "$DIR/log/mariadb-start.log" 2>/dev/null | tail -5
    unset PHPCLAW_MYSQL_DSN
    ENDPOINTS="shell,file_read,file_write,file_edit,code_search,project_info,zip_package,http_request,db_sqlite,router,adapter"
fi

php -n -d extension=pdo -d extension=pdo_sqlite -d extension=mysqlnd -d extension=pdo_mysql \
    "$HERE/setup.php" "$DIR/ws"

HTTP_PORT="$(free_port)"
python3 "$HERE/load.py" serve "$HTTP_PORT" &
PIDS+=($!)

FPM_PORT="$(free_port)"
STATUS_PORT="$(free_port)"
NGINX_PORT="$(free_port)"
RUN_AS_ROOT=""
POOL_USER=""
NGINX_USER=""
if [ "$(id -u)" = 0 ]; then
    RUN_AS_ROOT="-R"
    POOL_USER="user = root"
    NGINX_USER="user root;"
fi

cat >"$DIR/php.ini" <<EOF
extension=pdo
extension=pdo_sqlite
extension=mysqlnd
extension=pdo_mysql
zend_extension=opcache
extension=$SO
opcache.enable=1
memory_limit=256M
max_execution_time=30
display_errors=Off
log_errors=On
error_log=$DIR/log/php.log
sys_temp_dir=$DIR/tmp
upload_tmp_dir=$DIR/tmp
phpclaw.test_allow_loopback=1
EOF

cat >"$DIR/fpm.conf" <<EOF
[global]
pid = $DIR/fpm.pid
error_log = $DIR/log/fpm.log
log_level = notice
daemonize = no

[soak]
$POOL_USER
listen = 127.0.0.1:$FPM_PORT
pm = static
pm.max_children = 4
pm.max_requests = 0
pm.status_path = /fpm-status
pm.status_listen = 127.0.0.1:$STATUS_PORT
request_terminate_timeout = 60s
catch_workers_output = yes
clear_env = yes
env[PATH] = "/usr/local/bin:/usr/bin:/bin"
env[TMPDIR] = "$DIR/tmp"
env[SOAK_WS] = "$DIR/ws"
env[SOAK_HTTP] = "http://127.0.0.1:$HTTP_PORT"
env[SOAK_MYSQL_DSN] = "${PHPCLAW_MYSQL_DSN:-}"
env[SOAK_MYSQL_USER] = "${PHPCLAW_MYSQL_USER:-}"
env[SOAK_MYSQL_PASSWORD] = "${PHPCLAW_MYSQL_PASSWORD:-}"
env[SOAK_INJECT] = "${SOAK_INJECT:-none}"
EOF

fastcgi_params() {
    local p
    for p in "SCRIPT_FILENAME \$document_root\$fastcgi_script_name" "SCRIPT_NAME \$fastcgi_script_name" \
        "QUERY_STRING \$query_string" "REQUEST_METHOD \$request_method" "CONTENT_TYPE \$content_type" \
        "CONTENT_LENGTH \$content_length" "REQUEST_URI \$request_uri" "DOCUMENT_ROOT \$document_root" \
        "SERVER_PROTOCOL \$server_protocol" "GATEWAY_INTERFACE CGI/1.1" "REMOTE_ADDR \$remote_addr" \
        "REMOTE_PORT \$remote_port" "SERVER_ADDR \$server_addr" "SERVER_PORT \$server_port" \
        "SERVER_NAME \$server_name"; do
        echo "            fastcgi_param $p;"
    done
}

cat >"$DIR/nginx.conf" <<EOF
$NGINX_USER
worker_processes 1;
daemon off;
pid $DIR/nginx/nginx.pid;
error_log $DIR/log/nginx-error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    default_type application/json;
    client_body_temp_path $DIR/nginx/body;
    fastcgi_temp_path $DIR/nginx/fastcgi;
    proxy_temp_path $DIR/nginx/proxy;
    uwsgi_temp_path $DIR/nginx/uwsgi;
    scgi_temp_path $DIR/nginx/scgi;
    keepalive_requests 100000000;
    keepalive_timeout 120s;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $HERE/www;
        location = /fpm-status {
            fastcgi_pass 127.0.0.1:$STATUS_PORT;
$(fastcgi_params)
        }
        location ~ ^/[a-z][a-z_]*\.php\$ {
            fastcgi_pass 127.0.0.1:$FPM_PORT;
            fastcgi_read_timeout 120s;
$(fastcgi_params)
        }
        location / { return 404; }
    }
}
EOF

PHP_INI_SCAN_DIR= "$FPM" -n -c "$DIR/php.ini" -y "$DIR/fpm.conf" -F $RUN_AS_ROOT &
QUIT_PIDS+=($!)
"$NGINX" -e "$DIR/log/nginx-error.log" -c "$DIR/nginx.conf" -p "$DIR/nginx" &
QUIT_PIDS+=($!)

# Ready when the status page answers through nginx.
for i in $(seq 1 100); do
    curl_ok="$(python3 - "$NGINX_PORT" <<'PY' 2>/dev/null || true
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=2)
c.request("GET", "/fpm-status?json")
r = c.getresponse()
print("ok" if r.status == 200 else r.status)
PY
)"
    [ "$curl_ok" = ok ] && break
    if [ "$i" = 100 ]; then
        echo "soak: php-fpm/nginx did not come up" >&2
        tail -n 20 "$DIR"/log/*.log >&2 || true
        exit 1
    fi
    sleep 0.1
done
echo "soak: nginx $("$NGINX" -v 2>&1 | sed 's/.*\///') on 127.0.0.1:$NGINX_PORT, $("$FPM" -v | head -1 | cut -d' ' -f1-2) (4 static workers), module $SO"

status=0
# Extra options for load.py, e.g. SOAK_LOAD_ARGS="--samples /tmp/samples.jsonl --interval 0.2".
SOAK_LOAD_ARGS="${SOAK_LOAD_ARGS:-}"
# In the background, so that a signal to this script runs the trap at once.
python3 "$HERE/load.py" load --port "$NGINX_PORT" --seconds "$SECONDS_TO_RUN" --ws "$DIR/ws" \
    --tmp "$DIR/tmp" --tmp "$DIR/nginx/body" --tmp "$DIR/nginx/fastcgi" --endpoints "$ENDPOINTS" $SOAK_LOAD_ARGS &
LOAD_PID=$!
PIDS+=("$LOAD_PID")
wait "$LOAD_PID" || status=$?

# What the servers logged: a worker that died, or any PHP diagnostic, fails the run.
if grep -hE 'exited on signal|exited with code|ERROR|PHP (Fatal|Warning|Notice|Deprecated)' \
    "$DIR/log/fpm.log" "$DIR/log/php.log" 2>/dev/null | head -10 | grep .; then
    echo "soak FAILED: the php-fpm log above"
    status=1
fi
if grep -hE '\[(alert|crit|emerg|error)\]' "$DIR/log/nginx-error.log" 2>/dev/null | head -10 | grep .; then
    echo "soak FAILED: the nginx log above"
    status=1
fi
[ -n "$MYSQL_NOTE" ] && echo "$MYSQL_NOTE"
exit $status
