dnl config.m4 for phpclaw: the PECL/PIE build path (phpize && ./configure && make && make install).
dnl
dnl The module is written in Rust, so there is no C source for libtool to compile: configure
dnl finds cargo and rustc, records the php-config it was given, and Makefile.frag runs
dnl `cargo build --release` with that php-config (env PHP_CONFIG and PHP, read by ext-php-rs's
dnl build script and by build.rs), then copies the library to modules/phpclaw.so, where
dnl `make install` finds it like any other module.

PHP_ARG_ENABLE([phpclaw],
  [whether to enable phpclaw],
  [AS_HELP_STRING([--enable-phpclaw],
    [Build phpclaw, phpClaw's tool layer in Rust (built with cargo)])],
  [yes])

PHP_ARG_WITH([cargo],,
  [AS_HELP_STRING([--with-cargo=PATH],
    [phpclaw: path to cargo [cargo on PATH, then ~/.cargo/bin/cargo]])],
  [no],
  [no])

if test "$PHP_PHPCLAW" != "no"; then
  dnl cargo: --with-cargo, else $CARGO, else PATH, else rustup's default folder.
  AC_MSG_CHECKING([for cargo])
  phpclaw_cargo=
  if test "$PHP_CARGO" != "no" && test "$PHP_CARGO" != "yes"; then
    phpclaw_cargo=$PHP_CARGO
  elif test -n "$CARGO"; then
    phpclaw_cargo=$CARGO
  else
    phpclaw_cargo=`command -v cargo 2>/dev/null`
    if test -z "$phpclaw_cargo" && test -n "$HOME" && test -x "$HOME/.cargo/bin/cargo"; then
      phpclaw_cargo=$HOME/.cargo/bin/cargo
    fi
  fi
  case "$phpclaw_cargo" in
    ""|/*) ;;
    *) phpclaw_cargo=`command -v "$phpclaw_cargo" 2>/dev/null` ;;
  esac
  if test -z "$phpclaw_cargo" || test ! -x "$phpclaw_cargo"; then
    AC_MSG_RESULT([not found])
    AC_MSG_ERROR([phpclaw is written in Rust and needs cargo and rustc 1.80 or later to build.
Install them with rustup (https://rustup.rs), then run configure again; or name the cargo
to use with --with-cargo=/path/to/cargo (or the CARGO environment variable).])
  fi
  AC_MSG_RESULT([$phpclaw_cargo])
  phpclaw_cargo_dir=`dirname "$phpclaw_cargo"`

  dnl rustc: $RUSTC, else the one beside cargo (rustup's proxies), else PATH.
  AC_MSG_CHECKING([for rustc])
  if test -n "$RUSTC"; then
    phpclaw_rustc=$RUSTC
  elif test -x "$phpclaw_cargo_dir/rustc"; then
    phpclaw_rustc=$phpclaw_cargo_dir/rustc
  else
    phpclaw_rustc=`command -v rustc 2>/dev/null`
  fi
  phpclaw_rustc_version=`"$phpclaw_rustc" --version 2>/dev/null`
  if test -z "$phpclaw_rustc_version"; then
    AC_MSG_RESULT([not found])
    AC_MSG_ERROR([phpclaw needs rustc 1.80 or later beside cargo ($phpclaw_cargo), and none answered.
Install a Rust toolchain with rustup (https://rustup.rs): rustup default stable.])
  fi
  AC_MSG_RESULT([$phpclaw_rustc_version])
  AC_MSG_CHECKING([whether rustc is 1.80 or later])
  phpclaw_rustc_minor=`echo "$phpclaw_rustc_version" | $SED -n 's/^rustc 1\.\([[0-9]]*\)\..*/\1/p'`
  if test -z "$phpclaw_rustc_minor" || test "$phpclaw_rustc_minor" -lt 80; then
    AC_MSG_RESULT([no])
    AC_MSG_ERROR([phpclaw needs rustc 1.80 or later; found "$phpclaw_rustc_version". Update it: rustup update stable])
  fi
  AC_MSG_RESULT([yes])

  dnl The php-config given with --with-php-config (phpize's configure sets PHP_CONFIG), as an
  dnl absolute path, and the PHP binary it names: both go to cargo's build.
  AC_MSG_CHECKING([for the php-config cargo builds against])
  case "$PHP_CONFIG" in
    /*) phpclaw_php_config=$PHP_CONFIG ;;
    */*) phpclaw_php_config=`pwd`/$PHP_CONFIG ;;
    *) phpclaw_php_config=`command -v "$PHP_CONFIG" 2>/dev/null` ;;
  esac
  if test -z "$phpclaw_php_config" || test ! -x "$phpclaw_php_config"; then
    AC_MSG_RESULT([not found])
    AC_MSG_ERROR([cannot find php-config "$PHP_CONFIG"; use --with-php-config=PATH])
  fi
  AC_MSG_RESULT([$phpclaw_php_config])
  AC_MSG_CHECKING([for the PHP binary cargo builds against])
  phpclaw_php=`"$phpclaw_php_config" --php-binary 2>/dev/null`
  if test -z "$phpclaw_php" || test ! -x "$phpclaw_php"; then
    AC_MSG_RESULT([not found])
    AC_MSG_ERROR([$phpclaw_php_config names no runnable PHP binary (--php-binary gave "$phpclaw_php"); ext-php-rs needs it to read the PHP build's settings])
  fi
  AC_MSG_RESULT([$phpclaw_php])

  dnl ext-php-rs generates its Zend bindings with bindgen, which loads libclang at build time.
  AC_MSG_CHECKING([for libclang (bindgen)])
  phpclaw_libclang=
  if test -n "$LIBCLANG_PATH"; then
    phpclaw_libclang=$LIBCLANG_PATH
  else
    for phpclaw_lib in `ldconfig -p 2>/dev/null | $SED -n 's/.*libclang[[-.0-9]]*\.so[[.0-9]]* .*=> //p'` \
        /usr/lib/llvm-*/lib/libclang*.so* /usr/lib/libclang*.so* /usr/lib64/libclang*.so* /usr/local/lib/libclang*.so*; do
      if test -f "$phpclaw_lib"; then
        phpclaw_libclang=$phpclaw_lib
        break
      fi
    done
  fi
  if test -n "$phpclaw_libclang"; then
    AC_MSG_RESULT([$phpclaw_libclang])
  else
    AC_MSG_RESULT([not found])
    AC_MSG_WARN([no libclang found; the build will fail in bindgen unless cargo finds one. Install libclang-dev and clang (Debian), or set LIBCLANG_PATH.])
  fi

  dnl cargo's target folder: $CARGO_TARGET_DIR at configure time, else ./target. `make` may
  dnl still be given another CARGO_TARGET_DIR.
  AC_MSG_CHECKING([for cargo's target folder])
  if test -n "$CARGO_TARGET_DIR"; then
    case "$CARGO_TARGET_DIR" in
      /*) phpclaw_target_dir=$CARGO_TARGET_DIR ;;
      *) phpclaw_target_dir=`pwd`/$CARGO_TARGET_DIR ;;
    esac
  else
    phpclaw_target_dir=$abs_builddir/target
  fi
  AC_MSG_RESULT([$phpclaw_target_dir])

  PHPCLAW_CARGO=$phpclaw_cargo
  PHPCLAW_CARGO_DIR=$phpclaw_cargo_dir
  PHPCLAW_PHP_CONFIG=$phpclaw_php_config
  PHPCLAW_PHP=$phpclaw_php
  PHPCLAW_TARGET_DIR=$phpclaw_target_dir
  PHP_SUBST(PHPCLAW_CARGO)
  PHP_SUBST(PHPCLAW_CARGO_DIR)
  PHP_SUBST(PHPCLAW_PHP_CONFIG)
  PHP_SUBST(PHPCLAW_PHP)
  PHP_SUBST(PHPCLAW_TARGET_DIR)

  dnl No PHP_NEW_EXTENSION: libtool compiles nothing. The module target below is what
  dnl `make` builds and `make install` copies from modules/.
  PHP_MODULES="\$(phplibdir)/phpclaw.la"
  PHP_ADD_BUILD_DIR([modules])
  PHP_ADD_MAKEFILE_FRAGMENT([$abs_srcdir/Makefile.frag], [$abs_srcdir], [$abs_builddir])
fi
