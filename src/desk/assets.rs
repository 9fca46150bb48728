//! The page's files, built into the binary: the desk needs no network and
//! no file beside the executable.

/// One embedded file.
pub struct Asset {
    pub content_type: &'static str,
    pub body: &'static [u8],
}

const ASSETS: [(&str, Asset); 4] = [
    (
        "/",
        Asset {
            content_type: "text/html; charset=utf-8",
            body: include_bytes!("assets/index.html"),
        },
    ),
    (
        "/desk.js",
        Asset {
            content_type: "text/javascript; charset=utf-8",
            body: include_bytes!("assets/desk.js"),
        },
    ),
    (
        "/desk.css",
        Asset {
            content_type: "text/css; charset=utf-8",
            body: include_bytes!("assets/desk.css"),
        },
    ),
    (
        "/favicon.svg",
        Asset {
            content_type: "image/svg+xml",
            body: include_bytes!("assets/favicon.svg"),
        },
    ),
];

/// The file served at `path`, if any.
pub fn find(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|(p, _)| *p == path).map(|(_, a)| a)
}
