//! Proves that the Rust declarations in src/lib.rs match the C header.
//!
//! 1. The set of `MX_API` functions in modelexport.h equals the set of
//!    `pub fn mx_*` in src/lib.rs, and every `MX_*` code/version constant of
//!    the header has a Rust constant.
//! 2. A C file is generated from the *Rust* declarations: each function is
//!    assigned to a function pointer whose C type is translated from the Rust
//!    signature, each constant is `_Static_assert`ed. It is compiled against
//!    the real header with `-Werror`; a parameter of the wrong width,
//!    constness, indirection or return type is an incompatible-pointer error.
//! 3. Negative controls: a mutated signature and a missing function must be
//!    detected, so the checker itself cannot silently pass.
//!
//! Header: $MODELEXPORT_INCLUDE_DIR, else ../../../abi/include of this crate,
//! else $MODELEXPORT_PREFIX/include (default /usr/local/include).
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

fn include_dir() -> PathBuf {
    if let Ok(d) = std::env::var("MODELEXPORT_INCLUDE_DIR") {
        return PathBuf::from(d);
    }
    let in_repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../abi/include");
    if in_repo.join("modelexport/modelexport.h").exists() {
        return in_repo;
    }
    let prefix = std::env::var("MODELEXPORT_PREFIX").unwrap_or_else(|_| "/usr/local".into());
    PathBuf::from(prefix).join("include")
}

fn strip_c_comments(s: &str) -> String {
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            i = s[i + 2..].find("*/").map(|p| i + 2 + p + 2).unwrap_or(b.len());
            out.push(' ');
        } else if b[i..].starts_with(b"//") {
            i = s[i..].find('\n').map(|p| i + p).unwrap_or(b.len());
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn ident_before_paren(decl: &str) -> Option<String> {
    let open = decl.find('(')?;
    let head = decl[..open].trim_end();
    let start = head.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map(|p| p + 1).unwrap_or(0);
    Some(head[start..].to_string())
}

/// Names of the functions the header exports.
fn header_functions(header: &str) -> BTreeSet<String> {
    let text = strip_c_comments(header);
    let mut names = BTreeSet::new();
    let mut rest = text.as_str();
    while let Some(p) = rest.find("MX_API ") {
        rest = &rest[p + 7..];
        let end = rest.find(';').expect("declaration ends with ;");
        if let Some(name) = ident_before_paren(&rest[..end]) {
            names.insert(name);
        }
        rest = &rest[end..];
    }
    names
}

/// Constants the Rust side must mirror: the mx_code enumerators and versions.
fn header_constants(header: &str) -> BTreeSet<String> {
    let text = strip_c_comments(header);
    let mut names = BTreeSet::new();
    for tok in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if tok == "MX_OK" || tok.starts_with("MX_ERR_") || tok.starts_with("MX_VERSION_") {
            names.insert(tok.to_string());
        }
    }
    names
}

#[derive(Clone, Debug)]
struct RustFn {
    name: String,
    params: Vec<String>, // Rust types
    ret: Option<String>,
}

fn rust_decls(src: &str) -> (Vec<RustFn>, Vec<(String, String)>) {
    let mut fns = Vec::new();
    let mut consts = Vec::new();
    for line in src.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("pub const ") {
            // pub const NAME: T = V;
            let (name, rest) = rest.split_once(':').unwrap();
            let value = rest.split_once('=').unwrap().1.trim().trim_end_matches(';').trim();
            consts.push((name.trim().to_string(), value.to_string()));
        } else if let Some(rest) = line.strip_prefix("pub fn ") {
            let open = rest.find('(').unwrap();
            let close = rest.rfind(')').unwrap();
            let name = rest[..open].trim().to_string();
            let params = rest[open + 1..close]
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| p.split_once(':').expect("name: type").1.trim().to_string())
                .collect();
            let tail = rest[close + 1..].trim().trim_end_matches(';').trim();
            let ret = tail.strip_prefix("->").map(|t| t.trim().to_string());
            fns.push(RustFn { name, params, ret });
        }
    }
    (fns, consts)
}

/// Translates a Rust FFI type into the C type it must correspond to.
fn c_type(rust: &str) -> String {
    let t = rust.trim();
    if let Some(inner) = t.strip_prefix("*mut ") {
        return format!("{}*", c_type(inner));
    }
    if let Some(inner) = t.strip_prefix("*const ") {
        let inner_c = c_type(inner);
        return if inner.trim_start().starts_with('*') {
            format!("{inner_c} const*")
        } else {
            format!("const {inner_c}*")
        };
    }
    match t {
        "c_char" => "char".into(),
        "c_void" => "void".into(),
        "c_int" => "int".into(),
        "usize" => "size_t".into(),
        "u32" => "uint32_t".into(),
        "i32" => "int32_t".into(),
        "u64" => "uint64_t".into(),
        "u8" => "uint8_t".into(),
        other if other.starts_with("mx_") => other.into(),
        other => panic!("no C equivalent known for Rust type `{other}`"),
    }
}

fn generate_c(fns: &[RustFn], consts: &[(String, String)]) -> String {
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdint.h>\n#include \"modelexport/modelexport.h\"\n\
         #include \"modelexport/plugin.h\"\n\
         _Static_assert(sizeof(mx_code) == sizeof(int), \"mx_code is int-sized (Rust: c_int)\");\n",
    );
    for (name, value) in consts {
        c += &format!("_Static_assert({name} == {value}, \"{name} differs from the Rust constant\");\n");
    }
    for f in fns {
        let ret = f.ret.as_deref().map(c_type).unwrap_or_else(|| "void".into());
        let params = if f.params.is_empty() {
            "void".to_string()
        } else {
            f.params.iter().map(|p| c_type(p)).collect::<Vec<_>>().join(", ")
        };
        c += &format!("{ret} (*const check_{n})({params}) = &{n};\n", n = f.name);
    }
    c
}

/// Compiles the generated C against the header; Err(compiler output).
fn compile(c_src: &str, tag: &str) -> Result<(), String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("header_match_{tag}.c"));
    std::fs::write(&file, c_src).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only"])
        .arg("-I")
        .arg(include_dir())
        .arg(&file)
        .output()
        .expect("a C compiler (cc or $CC) is needed for the header check");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn load() -> (String, Vec<RustFn>, Vec<(String, String)>) {
    let header_path = include_dir().join("modelexport/modelexport.h");
    let header = std::fs::read_to_string(&header_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", header_path.display()));
    let src = include_str!("../src/lib.rs");
    let (fns, consts) = rust_decls(src);
    (header, fns, consts)
}

#[test]
fn function_sets_are_equal() {
    let (header, fns, _) = load();
    let c: BTreeSet<_> = header_functions(&header);
    let r: BTreeSet<_> = fns.iter().map(|f| f.name.clone()).collect();
    assert!(c.len() >= 25, "header parse found too few functions: {c:?}");
    let missing: Vec<_> = c.difference(&r).collect();
    let extra: Vec<_> = r.difference(&c).collect();
    assert!(missing.is_empty() && extra.is_empty(),
            "header/Rust mismatch: missing in Rust {missing:?}, not in header {extra:?}");
}

#[test]
fn constants_are_mirrored() {
    let (header, _, consts) = load();
    let r: BTreeSet<_> = consts.iter().map(|(n, _)| n.clone()).collect();
    let missing: Vec<_> = header_constants(&header).into_iter().filter(|n| !r.contains(n)).collect();
    assert!(missing.is_empty(), "header constants without a Rust constant: {missing:?}");
}

#[test]
fn signatures_compile_against_header() {
    let (_, fns, consts) = load();
    if let Err(e) = compile(&generate_c(&fns, &consts), "ok") {
        panic!("Rust declarations do not match modelexport.h:\n{e}");
    }
}

#[test]
fn checker_catches_a_wrong_signature() {
    let (_, mut fns, consts) = load();
    let f = fns.iter_mut().find(|f| f.name == "mx_model_load_bytes").unwrap();
    f.params[1] = "u32".into(); // size_t -> uint32_t
    assert!(compile(&generate_c(&fns, &consts), "bad_width").is_err());

    let (_, mut fns, consts) = load();
    let f = fns.iter_mut().find(|f| f.name == "mx_model_save_file").unwrap();
    f.params[0] = "*mut mx_model".into(); // constness
    assert!(compile(&generate_c(&fns, &consts), "bad_const").is_err());

    let (_, fns, mut consts) = load();
    consts.iter_mut().find(|(n, _)| n == "MX_ERR_IO").unwrap().1 = "3".into();
    assert!(compile(&generate_c(&fns, &consts), "bad_const_value").is_err());
}

#[test]
fn checker_catches_a_missing_function() {
    let (header, fns, _) = load();
    let r: BTreeSet<_> = fns.iter().map(|f| f.name.clone()).filter(|n| n != "mx_free").collect();
    assert_ne!(header_functions(&header), r);
}

#[test]
fn library_exports_every_declared_function() {
    // test.sh sets MODELEXPORT_LIB_DIR; elsewhere this check is skipped.
    let Ok(dir) = std::env::var("MODELEXPORT_LIB_DIR") else {
        eprintln!("SKIP: MODELEXPORT_LIB_DIR not set");
        return;
    };
    let lib = PathBuf::from(dir).join("libmodelexport.so");
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(&lib).output().expect("nm (binutils)");
    assert!(out.status.success(), "nm failed on {}", lib.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let exported: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_string())
        .filter(|s| s.starts_with("mx_"))
        .collect();
    let (_, fns, _) = load();
    let declared: BTreeSet<String> = fns.into_iter().map(|f| f.name).collect();
    let missing: Vec<_> = declared.difference(&exported).collect();
    let extra: Vec<_> = exported.difference(&declared).collect();
    assert!(missing.is_empty(), "{} does not export {missing:?}", lib.display());
    assert!(extra.is_empty(), "{} exports mx_* symbols the header does not declare: {extra:?}", lib.display());
}
