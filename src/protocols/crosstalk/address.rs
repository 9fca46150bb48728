//! Crosstalk addresses: bootstrap names (`CLAUDE`) and URLs of the addressing
//! scheme (`human://`, `claude://`, `chatgpt://`, `email:`, `tel:`, custom schemes).

/// What kind of address a string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressKind {
    /// A simple name resolved by the human relaying (`CLAUDE`, `dr-smith`).
    Name,
    /// One of the spec's standard schemes.
    Standard,
    /// Any other well-formed `scheme:` address (`mcp://tool@host`, `slack://…`).
    Custom,
}

const STANDARD_AUTHORITY_SCHEMES: [&str; 3] = ["human", "claude", "chatgpt"];

/// Checks an address; the error says what is wrong with it.
pub fn check(address: &str) -> Result<AddressKind, String> {
    if address.is_empty() {
        return Err("address is empty".into());
    }
    if address.contains(['<', '>', '{', '}']) {
        return Err("address is a template placeholder".into());
    }
    if address.contains(char::is_whitespace) {
        return Err("address contains whitespace".into());
    }
    let Some((scheme, rest)) = address.split_once(':') else {
        return if address
            .chars()
            .all(|c| c.is_alphanumeric() || "_.-@+".contains(c))
        {
            Ok(AddressKind::Name)
        } else {
            Err("a simple name may hold letters, digits and _ . - @ + only".into())
        };
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_lowercase())
        && scheme
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+.-".contains(c));
    if !scheme_ok {
        return Err(format!(
            "`{scheme}` is not a valid scheme (lower-case letters, digits, + . -)"
        ));
    }
    match scheme {
        "email" => check_email(rest).map(|()| AddressKind::Standard),
        "tel" => check_tel(rest).map(|()| AddressKind::Standard),
        _ => {
            let Some(hier) = rest.strip_prefix("//") else {
                return if rest.is_empty() {
                    Err(format!("nothing after `{scheme}:`"))
                } else {
                    Ok(AddressKind::Custom)
                };
            };
            let authority = hier.split(['/', '?', '#']).next().unwrap_or("");
            if authority.is_empty() {
                return Err(format!(
                    "`{scheme}://` address has no authority (e.g. {scheme}://session/abc)"
                ));
            }
            if STANDARD_AUTHORITY_SCHEMES.contains(&scheme) {
                Ok(AddressKind::Standard)
            } else {
                Ok(AddressKind::Custom)
            }
        }
    }
}

fn check_email(rest: &str) -> Result<(), String> {
    let addr = rest.split('?').next().unwrap_or("");
    match addr.split_once('@') {
        Some((local, domain))
            if !local.is_empty() && !domain.is_empty() && !domain.contains('@') =>
        {
            Ok(())
        }
        _ => Err("an email: address needs local@domain".into()),
    }
}

fn check_tel(rest: &str) -> Result<(), String> {
    let digits = rest.strip_prefix('+').unwrap_or(rest);
    if !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || c == '-')
    {
        Ok(())
    } else {
        Err("a tel: address needs a phone number such as tel:+1-555-0100".into())
    }
}

/// Splits an `X-Route` value into its hops (separated by `→` or `->`).
pub fn route_hops(route: &str) -> Vec<&str> {
    route
        .split('→')
        .flat_map(|part| part.split("->"))
        .map(str::trim)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_spec_examples() {
        for a in [
            "human://support.acme.com/queue/billing",
            "human://dr.smith@clinic.example/inbox",
            "human://+1-555-0100",
            "claude://session/abc123?model=opus",
            "chatgpt://thread/xyz789?workspace=default",
            "email:user@domain.com?subject=AI+Crosstalk",
            "tel:+44-20-7123-4567",
        ] {
            assert_eq!(check(a), Ok(AddressKind::Standard), "{a}");
        }
        for a in [
            "mcp://tool@host",
            "matrix://server/room",
            "slack://workspace/channel",
        ] {
            assert_eq!(check(a), Ok(AddressKind::Custom), "{a}");
        }
        assert_eq!(check("CLAUDE"), Ok(AddressKind::Name));
    }

    #[test]
    fn rejects_broken_addresses() {
        for a in [
            "{sender}",
            "<you>",
            "claude://",
            "email:nobody",
            "tel:call-me",
            "Bad Name",
            "HTTP://x",
        ] {
            assert!(check(a).is_err(), "{a}");
        }
    }

    #[test]
    fn splits_routes_on_both_arrows() {
        assert_eq!(
            route_hops("claude://abc → human://relay -> chatgpt://xyz"),
            vec!["claude://abc", "human://relay", "chatgpt://xyz"]
        );
    }
}
