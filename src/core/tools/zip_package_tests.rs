use super::*;
use crate::core::tools::{run, Host};
use std::io::Read;

struct Open;
impl Host for Open {
    type Error = ();
    fn running_in_console(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
    fn allows(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
}

fn input(src: &str, name: &str) -> Value {
    Value::from_pairs([("source_dir", src), ("output_name", name)])
}

#[test]
fn packs_sorted_under_the_output_folder() {
    let ws = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let src = ws.path().join("plug");
    fs::create_dir_all(src.join("b/c")).unwrap();
    fs::write(src.join("z.txt"), b"zz").unwrap();
    fs::write(src.join("a.txt"), b"aa").unwrap();
    fs::write(src.join("b/c/d.php"), b"<?php").unwrap();
    let mut t = ZipPackage::new(ws.path().to_string_lossy().into_owned());
    t.temp_dir = tmp.path().to_path_buf();
    let out = run(&mut t, &mut Open, &input("/plug", "my plug!")).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("\"files\":3"), "{text}");
    assert!(text.contains("\"output_name\":\"myplug\""), "{text}");
    let mut z =
        zip::ZipArchive::new(fs::File::open(tmp.path().join("myplug.zip")).unwrap()).unwrap();
    let names: Vec<String> = (0..z.len())
        .map(|i| z.by_index(i).unwrap().name().to_string())
        .collect();
    assert_eq!(names, ["myplug/a.txt", "myplug/b/c/d.php", "myplug/z.txt"]);
    let mut s = String::new();
    z.by_name("myplug/b/c/d.php")
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    assert_eq!(s, "<?php");
}

#[test]
fn refusals() {
    let ws = tempfile::tempdir().unwrap();
    fs::create_dir(ws.path().join("d")).unwrap();
    fs::write(ws.path().join("f"), b"x").unwrap();
    let mut t = ZipPackage::new(ws.path().to_string_lossy().into_owned());
    let err = |t: &mut ZipPackage, v: Value| match run(t, &mut Open, &v) {
        Err(ToolError::Tool(m)) => m,
        other => panic!("{other:?}"),
    };
    assert_eq!(err(&mut t, input("", "x")), REQUIRED_MESSAGE);
    assert_eq!(err(&mut t, input("d", "../..")), REQUIRED_MESSAGE);
    assert_eq!(
        err(&mut t, input("nope", "x")),
        "zip_package: source_dir not found: nope"
    );
    assert_eq!(
        err(&mut t, input("f", "x")),
        "zip_package: source_dir not found: f"
    );
    assert_eq!(err(&mut t, input("d/../..", "x")), ESCAPE_MESSAGE);
}

#[test]
fn symlinks_outside_are_skipped() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret"), b"s").unwrap();
    let src = ws.path().join("p");
    fs::create_dir(&src).unwrap();
    fs::write(src.join("in"), b"i").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), src.join("leak")).unwrap();
    std::os::unix::fs::symlink(src.join("in"), src.join("alias")).unwrap();
    let base = fs::canonicalize(ws.path()).unwrap();
    let files = collect(&fs::canonicalize(&src).unwrap(), &base).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["alias", "in"]);
}
