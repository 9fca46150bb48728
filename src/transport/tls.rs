//! TLS client settings for `mqtts://`: rustls with the ring provider,
//! trusting the Mozilla roots (as the HTTP and SMTP clients do) and the CA
//! certificates of a PEM file given with `--cafile`.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// A client configuration that trusts the Mozilla roots and, with
/// `ca_file`, every certificate in that PEM file.
pub fn client_config(ca_file: Option<&Path>) -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = ca_file {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect())
            .map_err(|e| format!("cannot read CA certificates from {}: {e}", path.display()))?;
        if certs.is_empty() {
            return Err(format!("{}: no PEM certificate in it", path.display()));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| format!("{}: not a usable CA certificate: {e}", path.display()))?;
        }
    }
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())
        .map(|b| b.with_root_certificates(roots).with_no_client_auth())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_that_is_not_pem_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate").unwrap();
        let why = client_config(Some(&path)).unwrap_err();
        assert!(why.contains("ca.pem"), "{why}");
        let why = client_config(Some(&dir.path().join("missing.pem"))).unwrap_err();
        assert!(why.contains("missing.pem"), "{why}");
        assert!(client_config(None).is_ok());
    }
}
