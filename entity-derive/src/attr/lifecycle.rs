//! The lifecycle attributes, read into raw values: field `ttl`,
//! `ttl(after = "30d")` and `deleted_at`; container `soft_delete(...)` and
//! `history(...)`. Durations (`<n>s|m|h|d`) are read here, so a malformed
//! one is reported on its literal.

use super::{key_name, number, set_flag, set_once, string, unknown};
use crate::ctxt::Ctxt;
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::LitStr;

/// What the client does with a field over the item's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LifecycleRole {
    /// `ttl`, `ttl(after = "30d")`: when DynamoDB may delete the item.
    Ttl { after: Option<u64> },
    /// `deleted_at`: when the item was soft-deleted.
    DeletedAt,
}

impl LifecycleRole {
    /// The attribute key, for messages.
    pub fn name(self) -> &'static str {
        match self {
            LifecycleRole::Ttl { .. } => "ttl",
            LifecycleRole::DeletedAt => "deleted_at",
        }
    }
}

/// A duration with the literal that wrote it.
pub type Duration = (u64, Span);

/// `#[entity(soft_delete)]` or `soft_delete(keep_unique, expire_after = "30d")`.
pub struct RawSoftDelete {
    pub keep_unique: Option<Span>,
    pub expire_after: Option<Duration>,
}

/// `#[entity(history)]` or `history(keep = 10, separator = "@", expire_after = "90d")`.
pub struct RawHistory {
    /// The `history` token.
    pub span: Span,
    pub keep: Option<(u32, Span)>,
    pub separator: Option<LitStr>,
    pub expire_after: Option<Duration>,
}

const TTL_KEYS: [&str; 1] = ["after"];
const SOFT_DELETE_KEYS: [&str; 2] = ["keep_unique", "expire_after"];
const HISTORY_KEYS: [&str; 3] = ["keep", "separator", "expire_after"];

/// Field `ttl` or `ttl(after = "30d")`.
pub fn ttl(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<LifecycleRole>> {
    let mut after = None;
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            match key_name(&inner).as_str() {
                "after" => set_once(cx, &inner, &mut after, duration(cx, &inner)?),
                _ => return unknown(cx, &inner, "`ttl(...)`", &TTL_KEYS),
            }
            Ok(())
        })?;
    } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        return Err(meta.error(
            "write `ttl`, or `ttl(after = \"30d\")` for an expiry the client slides on every write",
        ));
    }
    Ok(Some(LifecycleRole::Ttl {
        after: after.map(|(seconds, _)| seconds),
    }))
}

/// Container `soft_delete` or `soft_delete(...)`.
pub fn soft_delete(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<RawSoftDelete>> {
    let mut raw = RawSoftDelete {
        keep_unique: None,
        expire_after: None,
    };
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            match key_name(&inner).as_str() {
                "keep_unique" => set_flag(cx, &inner, &mut raw.keep_unique),
                "expire_after" => {
                    set_once(cx, &inner, &mut raw.expire_after, duration(cx, &inner)?)
                }
                _ => return unknown(cx, &inner, "`soft_delete(...)`", &SOFT_DELETE_KEYS),
            }
            Ok(())
        })?;
    }
    Ok(Some(raw))
}

/// Container `history` or `history(...)`.
pub fn history(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<RawHistory>> {
    let mut raw = RawHistory {
        span: meta
            .path
            .get_ident()
            .map_or(Span::call_site(), |i| i.span()),
        keep: None,
        separator: None,
        expire_after: None,
    };
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            match key_name(&inner).as_str() {
                "keep" => set_once(cx, &inner, &mut raw.keep, number(cx, &inner)?),
                "separator" => set_once(cx, &inner, &mut raw.separator, string(cx, &inner)?),
                "expire_after" => {
                    set_once(cx, &inner, &mut raw.expire_after, duration(cx, &inner)?)
                }
                _ => return unknown(cx, &inner, "`history(...)`", &HISTORY_KEYS),
            }
            Ok(())
        })?;
    }
    Ok(Some(raw))
}

/// `"30d"`: a whole number of seconds (`s`), minutes (`m`), hours (`h`) or
/// days (`d`), at least one; anything else is reported on the literal.
fn duration(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Duration>> {
    let Some(lit) = string(cx, meta)? else {
        return Ok(None);
    };
    let seconds = parse_duration(&lit.value());
    if seconds.is_none() {
        let name = key_name(meta);
        cx.error(
            &lit,
            format!(
                "`{name}` is a duration: a whole number of at least 1 followed by `s`, `m`, `h` or `d`, such as `{name} = \"30d\"`"
            ),
        );
    }
    Ok(seconds.map(|s| (s, lit.span())))
}

fn parse_duration(text: &str) -> Option<u64> {
    let unit = match text.chars().last()? {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        _ => return None,
    };
    let digits = &text[..text.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    // Epoch seconds are an `i64`: a duration past that is no expiry.
    n.checked_mul(unit)
        .filter(|s| *s >= 1 && *s <= i64::MAX as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30d"), Some(30 * 86_400));
        assert_eq!(parse_duration("90s"), Some(90));
        assert_eq!(parse_duration("15m"), Some(900));
        assert_eq!(parse_duration("2h"), Some(7_200));
        for bad in [
            "",
            "d",
            "0d",
            "-1d",
            "1.5h",
            "30",
            "30 d",
            "3w",
            "99999999999999999999d",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }
}
