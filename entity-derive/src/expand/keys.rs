//! Key composers (from `&self` and from arguments), parsers and type guards
//! for the table key and every index key, and `Entity::key(...)`.

use super::{composite_fields, key_names, key_params};
use crate::model::stops::Stop;
use crate::model::{Entity, Index, IndexKind, Key, Piece, Shards};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

/// The entity's inherent impl: the key functions, `key`, and `more` (the
/// accessors, `fields()`, setters and lookups).
pub fn expand(entity: &Entity, more: TokenStream) -> TokenStream {
    let ident = entity.ident;
    let indexes = std::iter::once(&entity.primary).chain(&entity.indexes);
    let mut methods = TokenStream::new();
    for index in indexes {
        for (which, key) in index.keys() {
            if index.kind == IndexKind::Local && which == "pk" {
                continue; // an LSI's partition key is the table's
            }
            methods.extend(key_methods(entity, index, which, key));
        }
    }
    let primary_key = primary_key_fn(entity);
    let bounds = super::key_bounds(entity);
    quote! {
        // A key of many composites takes as many arguments.
        #[allow(clippy::too_many_arguments)]
        impl #ident #bounds {
            #methods
            #primary_key
            #more
        }
    }
}

/// The literal texts of `key`'s template around its composites (one before
/// each, one after the last), when the composites appear in order and are
/// few enough for the runtime's tuple composer and parser.
fn tuple_texts(key: &Key) -> Option<Vec<String>> {
    if key.composites.len() > MAX_TUPLE {
        return None;
    }
    let mut texts = vec![String::new()];
    let mut next = 0;
    for piece in key.pieces() {
        match piece {
            Piece::Text(text) => texts.last_mut()?.push_str(&text),
            Piece::Value(c) if c == next => {
                next += 1;
                texts.push(String::new());
            }
            Piece::Value(_) => return None,
        }
    }
    (next == key.composites.len()).then_some(texts)
}

/// The most composites `__private::compose` and `parse` take (the
/// runtime's `MAX_TUPLE`).
pub const MAX_TUPLE: usize = 12;

/// A block that composes `key` from variables named after its composite
/// fields, each of them some `impl KeyArg<FieldType>`.
pub fn compose_block(entity: &Entity, key: &Key) -> TokenStream {
    let krate = &entity.krate;
    if let Some(texts) = tuple_texts(key) {
        if let [text] = texts.as_slice() {
            return quote!({ ::std::string::String::from(#text) });
        }
        let (parts, args): (Vec<_>, Vec<_>) = (0..key.composites.len())
            .map(|c| {
                let ident = entity.fields[key.composites[c].field].ident;
                composite_arg(entity, key, c, quote!(#ident))
            })
            .unzip();
        return quote!({
            #krate::__private::compose::<(#(#parts,)*), _>(&[#(#texts),*], (#(#args,)*))
        });
    }
    let literal_len: usize = key
        .pieces()
        .iter()
        .map(|p| if let Piece::Text(t) = p { t.len() } else { 0 })
        .sum();
    let hints = key.composites.iter().map(|c| {
        let field = &entity.fields[c.field];
        let (ident, ty) = (field.ident, field.key_ty);
        quote!(+ #krate::KeyArg::<#ty>::arg_len_hint(&#ident))
    });
    let capacity = quote!(#literal_len #(#hints)*);
    let pushes = key.pieces().into_iter().map(|piece| match piece {
        Piece::Text(text) => quote!(__entity_key.push_str(#text);),
        Piece::Value(c) => {
            let ident = entity.fields[key.composites[c].field].ident;
            let (part, arg) = composite_arg(entity, key, c, quote!(#ident));
            quote!(#krate::KeyArg::<#part>::encode_arg(&#arg, &mut __entity_key);)
        }
    });
    quote! {{
        let mut __entity_key = ::std::string::String::with_capacity(#capacity);
        #(#pushes)*
        __entity_key
    }}
}

/// Composite `c` of `key` as its key part type and the argument `arg`
/// written as one: itself (case-folded if the key folds), wrapped to be
/// written as plain decimal, or as its bucket (`{t:month}`).
pub fn composite_arg(
    entity: &Entity,
    key: &Key,
    c: usize,
    arg: TokenStream,
) -> (TokenStream, TokenStream) {
    let krate = &entity.krate;
    let ty = entity.fields[key.composites[c].field].key_ty;
    if let Some(unit) = key.composites[c].bucket {
        (
            unit.key_part(krate, ty),
            quote!(#krate::__private::BucketArg::<#ty, _>::new(&#arg)),
        )
    } else if key.composites[c].unpadded {
        (
            quote!(#krate::__private::Unpadded<#ty>),
            quote!(#krate::__private::PlainArg::<#ty, _>::new(&#arg)),
        )
    } else {
        (quote!(#ty), super::value_casing::fold(entity, key, arg))
    }
}

/// `ShardSpec { .. }` of a sharded key, as a constant expression.
pub fn shard_spec(entity: &Entity, shards: &Shards, count: u16) -> TokenStream {
    let krate = &entity.krate;
    let (label, width) = (&shards.label, shards.width);
    quote!(#krate::key::ShardSpec { count: #count, label: #label, width: #width })
}

/// The hidden composer of a sharded key's unsharded text
/// (`__by_status_pk_base`), which accessors and group setters start from.
pub fn base_name(index: &Index, which: &str) -> Ident {
    quote::format_ident!("__{}_base", key_names(index, which).compose)
}

/// The shard of `self` in sharded key `key` (a `u16`): by the sort key
/// text for the table's partition key, by the whole table key
/// (`pk + "\0" + sk`) for an index's.
fn shard_from_self(entity: &Entity, key: &Key, spec: &TokenStream) -> TokenStream {
    let sk = match &entity.primary.sk {
        Some(_) => quote!(&Self::sk(self)),
        None => quote!(""),
    };
    if key.attribute == entity.primary.pk.attribute {
        quote!(#spec.shard_of(#sk))
    } else {
        quote!(#spec.shard_of_item(&Self::pk(self), #sk))
    }
}

/// The `shard` parameter of a sharded key's composer: mixed-site, so a
/// composite field named `shard` is another parameter.
fn shard_param() -> Ident {
    Ident::new("shard", proc_macro2::Span::mixed_site())
}

/// One key's composers, parser and guard.
fn key_methods(entity: &Entity, index: &Index, which: &str, key: &Key) -> TokenStream {
    let names = key_names(index, which);
    let (compose, compose_of, parse, guard) = (
        &names.compose,
        &names.compose_of,
        &names.parse,
        &names.guard,
    );
    let params = key_params(entity, key);
    let fields = composite_fields(entity, key);
    let field_idents = fields.iter().map(|f| f.ident);
    let template = key.template(&entity.fields);
    let attribute = &key.attribute;
    let entity_name = &entity.name;
    let compose_body = compose_block(entity, key);
    let parse_fn = parse_fn(entity, index, which, key, parse);
    let optional = key_optional_fields(entity, key);
    let shard_arg = key.sharding().map(|(shards, count)| {
        let spec = shard_spec(entity, shards, count);
        shard_from_self(entity, key, &spec)
    });
    let (compose_ty, compose_value) = if optional.is_empty() {
        (
            quote!(::std::string::String),
            quote!(Self::#compose_of(#(&self.#field_idents,)* #shard_arg)),
        )
    } else {
        let call = compose_from_self(entity, key, compose_of);
        let some = quote!(::core::option::Option::Some(#call));
        (
            quote!(::core::option::Option<::std::string::String>),
            when_present(
                entity,
                &optional,
                some,
                quote!(::core::option::Option::None),
            ),
        )
    };
    let mut doc_compose =
        format!("The `{attribute}` value of this `{entity_name}` ([`Self::{compose_of}`]).");
    if !optional.is_empty() {
        let names: Vec<String> = optional
            .iter()
            .map(|&f| format!("`{}`", crate::model::names::field_name(entity, f)))
            .collect();
        doc_compose.push_str(&format!(
            " `None` while {} is `None`: the item is not in the index.",
            names.join(" or ")
        ));
    }
    let doc_of = format!("Composes the `{attribute}` value `{template}` from its composites.");
    let doc_guard = format!("Whether [`Self::{parse}`] accepts `key`.");
    let composers = match key.sharding() {
        // (Generic, so inlined across crates without `#[inline]`.)
        None if !params.is_empty() => quote! {
            #[doc = #doc_of]
            pub fn #compose_of(#(#params),*) -> ::std::string::String #compose_body
        },
        None => quote! {
            #[doc = #doc_of]
            #[inline]
            pub fn #compose_of() -> ::std::string::String #compose_body
        },
        Some((shards, count)) => {
            let spec = shard_spec(entity, shards, count);
            let base = base_name(index, which);
            let shard = shard_param();
            let args = key.composites.iter().map(|c| entity.fields[c.field].ident);
            let doc_of = format!(
                "Composes the `{attribute}` value `{template}{}<shard>` of shard `shard` (taken modulo {count}) from its composites. An item's shard is a stable hash of its table key (see `entity_core::key::ShardSpec`).",
                shards.label
            );
            quote! {
                #[doc = #doc_of]
                #[inline]
                pub fn #compose_of(#(#params,)* #shard: u16) -> ::std::string::String {
                    let mut __entity_key = Self::#base(#(#args),*);
                    #spec.push_suffix(&mut __entity_key, #shard);
                    __entity_key
                }

                #[doc(hidden)]
                pub fn #base(#(#params),*) -> ::std::string::String #compose_body
            }
        }
    };
    quote! {
        #[doc = #doc_compose]
        #[inline]
        pub fn #compose(&self) -> #compose_ty {
            #compose_value
        }

        #composers

        #parse_fn

        #[doc = #doc_guard]
        #[inline]
        pub fn #guard(key: &str) -> bool {
            Self::#parse(key).is_ok()
        }
    }
}

/// The optional composites of `key`, each once, in field order.
fn key_optional_fields(entity: &Entity, key: &Key) -> Vec<usize> {
    let mut out: Vec<usize> = key
        .composites
        .iter()
        .map(|c| c.field)
        .filter(|&f| entity.fields[f].optional)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The local that holds optional field `f`'s value inside [`when_present`].
fn present_value(f: usize) -> Ident {
    quote::format_ident!("__entity_some_{}", f)
}

/// `present` when every optional field in `fields` of `self` is `Some`
/// (each value bound to its [`present_value`] local), else `absent`.
pub fn when_present(
    entity: &Entity,
    fields: &[usize],
    present: TokenStream,
    absent: TokenStream,
) -> TokenStream {
    let idents = fields.iter().map(|&f| entity.fields[f].ident);
    let locals = fields.iter().map(|&f| present_value(f));
    quote! {
        match (#(&self.#idents,)*) {
            (#(::core::option::Option::Some(#locals),)*) => #present,
            #[allow(unreachable_patterns)]
            _ => #absent,
        }
    }
}

/// `Self::by_x_sk_of(..)` from `self`'s fields, inside [`when_present`]
/// for the optional ones.
pub fn compose_from_self(entity: &Entity, key: &Key, compose_of: &Ident) -> TokenStream {
    let shard = key.sharding().map(|(shards, count)| {
        let spec = shard_spec(entity, shards, count);
        let shard = shard_from_self(entity, key, &spec);
        quote!(, #shard)
    });
    let args = key.composites.iter().map(|c| {
        let field = &entity.fields[c.field];
        if field.optional {
            let local = present_value(c.field);
            quote!(#local)
        } else {
            let ident = field.ident;
            quote!(&self.#ident)
        }
    });
    quote!(Self::#compose_of(#(#args),* #shard))
}

/// `parse_pk`: the composites back from a key, reading its template in
/// order. A derived part (`{t:month}`) gives back its bucket text as a
/// `String`: the bucket does not hold the instant.
fn parse_fn(entity: &Entity, index: &Index, which: &str, key: &Key, parse: &Ident) -> TokenStream {
    let krate = &entity.krate;
    let fields = composite_fields(entity, key);
    let field_idents = fields.iter().map(|f| f.ident);
    let types = key.composites.iter().map(|c| match c.bucket {
        Some(_) => quote!(::std::string::String),
        None => {
            let ty = entity.fields[c.field].key_ty;
            quote!(#ty)
        }
    });
    let template = key.template(&entity.fields);
    let attribute = &key.attribute;
    let which_text = if index.physical.is_none() {
        which.to_owned()
    } else {
        format!("{} {which}", index.name)
    };
    let entity_name = &entity.name;
    let reads = key.pieces().into_iter().map(|piece| match piece {
        Piece::Text(text) => quote!(__entity_reader.literal(#text)?;),
        Piece::Value(c) => {
            let field = &entity.fields[key.composites[c].field];
            let (ident, ty) = (field.ident, field.key_ty);
            let stop = stop_of(entity, key, c);
            if let Some(unit) = key.composites[c].bucket {
                let bucket = unit.key_part(krate, ty);
                quote!(let #ident: ::std::string::String = __entity_reader.value::<#bucket>(#stop)?.0;)
            } else if key.composites[c].unpadded {
                quote!(let #ident: #ty = __entity_reader.value::<#krate::__private::Unpadded<#ty>>(#stop)?.0;)
            } else {
                quote!(let #ident: #ty = __entity_reader.value::<#ty>(#stop)?;)
            }
        }
    });
    let mut doc_parse =
        format!("Parses a `{attribute}` value `{template}` back into its composites.");
    let plain = key
        .composites
        .iter()
        .all(|c| c.bucket.is_none() && !c.unpadded);
    if let Some(texts) = tuple_texts(key).filter(|_| plain && key.sharding().is_none()) {
        // Most keys end every value at the next `#`: the default reader.
        let default_stops = (0..key.composites.len()).all(|c| {
            matches!(
                key.stop_after(&entity.fields, c),
                Ok(Stop::First('#')) | Err(_)
            )
        });
        let call = if default_stops {
            quote!(#krate::__private::parse(#entity_name, #which_text, key, &[#(#texts),*]))
        } else {
            let stops = (0..key.composites.len()).map(|c| stop_of(entity, key, c));
            quote!(#krate::__private::parse_with(#entity_name, #which_text, key, &[#(#texts),*], &[#(#stops),*]))
        };
        return quote! {
            #[doc = #doc_parse]
            #[inline]
            pub fn #parse(key: &str) -> #krate::KeyResult<(#(#types,)*)> {
                #call
            }
        };
    }
    let shard = key.sharding().map(|(shards, count)| {
        doc_parse = format!("Parses a `{attribute}` value `{template}{}<shard>` back into its composites; the shard suffix is checked (a number below {count}) and left out.", shards.label);
        let spec = shard_spec(entity, shards, count);
        quote!(__entity_reader.shard(&#spec)?;)
    });
    quote! {
        #[doc = #doc_parse]
        #[inline]
        pub fn #parse(key: &str) -> ::core::result::Result<(#(#types,)*), #krate::KeyError> {
            let mut __entity_reader = #krate::KeyReader::new(#entity_name, #which_text, key);
            #(#reads)*
            #shard
            __entity_reader.finish()?;
            ::core::result::Result::Ok((#(#field_idents,)*))
        }
    }
}

/// Where composite `c`'s value ends when `key` is read back.
fn stop_of(entity: &Entity, key: &Key, c: usize) -> TokenStream {
    let krate = &entity.krate;
    // An ambiguous format has been refused; the fallback reads on.
    match key.stop_after(&entity.fields, c) {
        Ok(Stop::Last(c)) => quote!(#krate::key::Stop::Last(#c)),
        Ok(Stop::First(c)) => quote!(#krate::key::Stop::First(#c)),
        Err(_) => quote!(#krate::key::Stop::First('#')),
    }
}

/// `Task::key(task_id)`: the table key from its composites.
fn primary_key_fn(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let primary = &entity.primary;
    let mut params = key_params(entity, &primary.pk);
    let pk_fields: Vec<usize> = primary.pk.composites.iter().map(|c| c.field).collect();
    let sk_fields: Vec<usize> = primary
        .sk
        .iter()
        .flat_map(|sk| &sk.composites)
        .map(|c| c.field)
        .collect();
    // A field in both keys is one parameter, lent to both composers.
    let mut seen = pk_fields.clone();
    for &f in &sk_fields {
        if !seen.contains(&f) {
            seen.push(f);
            let field = &entity.fields[f];
            let (ident, ty) = (field.ident, field.key_ty);
            params.push(quote!(#ident: impl #krate::KeyArg<#ty>));
        }
    }
    let arg = |f: &usize| {
        let ident = entity.fields[*f].ident;
        if pk_fields.contains(f) && sk_fields.contains(f) {
            quote!(#krate::__private::ArgRef(&#ident))
        } else {
            quote!(#ident)
        }
    };
    let pk_args: Vec<TokenStream> = pk_fields.iter().map(arg).collect();
    let sk_args: Vec<TokenStream> = sk_fields.iter().map(arg).collect();
    let pk_of = key_names(primary, "pk").compose_of;
    let pk_attribute = &primary.pk.attribute;
    // (A sharded sort key was refused; the fallback still composes it.)
    let sk_of = match primary.sk.as_ref().and_then(|sk| sk.sharding()) {
        Some(_) => base_name(primary, "sk"),
        None => key_names(primary, "sk").compose_of,
    };
    let sk = primary.sk.as_ref().map(|sk| {
        let attribute = &sk.attribute;
        quote!((#attribute, Self::#sk_of(#(#sk_args),*)))
    });
    let sk_value = match &sk {
        Some(_) if primary.pk.sharding().is_some() => {
            let attribute = &primary.sk.as_ref().map(|sk| sk.attribute.as_str());
            quote!(::core::option::Option::Some((#attribute, __entity_sk)))
        }
        Some(sk) => quote!(::core::option::Option::Some(#sk)),
        None => quote!(::core::option::Option::None),
    };
    if let Some((shards, count)) = primary.pk.sharding() {
        // The shard is picked by the sort key text: composed first.
        let spec = shard_spec(entity, shards, count);
        let base = base_name(primary, "pk");
        let sk_text = match &primary.sk {
            Some(_) => quote!(Self::#sk_of(#(#sk_args),*)),
            None => quote!(::std::string::String::new()),
        };
        return quote! {
            /// The table key (what `get` and `delete` take) from its composites; the partition key's shard is picked by the sort key.
            pub fn key(#(#params),*) -> #krate::PrimaryKey<Self> {
                let __entity_sk: ::std::string::String = #sk_text;
                let mut __entity_pk = Self::#base(#(#pk_args),*);
                #spec.push_suffix(&mut __entity_pk, #spec.shard_of(&__entity_sk));
                #krate::PrimaryKey::new(#pk_attribute, __entity_pk, #sk_value)
            }
        };
    }
    quote! {
        /// The table key (what `get` and `delete` take) from its composites.
        pub fn key(#(#params),*) -> #krate::PrimaryKey<Self> {
            #krate::PrimaryKey::new(#pk_attribute, Self::#pk_of(#(#pk_args),*), #sk_value)
        }
    }
}

pub(super) fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// A field whose type cannot be stored, or a composite whose type cannot be
/// a key, fails here: the first on the field's type, the second on the
/// composite's name in the attribute. One check per field.
pub fn type_checks(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let composites = super::composite_field_set(entity);
    let mut checks = TokenStream::new();
    let mut builtins: Vec<String> = Vec::new();
    for (f, field) in entity.fields.iter().enumerate() {
        if field.serde && !composites.contains(&f) {
            let ty = field.ty;
            checks.extend(quote_spanned! {ty.span()=>
                #krate::__private::assert_serde_field::<#ty>();
            });
        }
        // A TTL field is stored as epoch seconds, checked as `TtlValue`.
        if composites.contains(&f) || field.serde || super::lifecycle::is_ttl_field(entity, f) {
            continue;
        }
        let ty = field.ty;
        if field.compression().is_some() {
            // `Compressible` is an attribute too: one check, naming compress.
            checks.extend(quote_spanned! {ty.span()=>
                #krate::__private::assert_compressible::<#ty>();
            });
            continue;
        }
        if once_per_builtin(&mut builtins, "attribute", ty) {
            checks.extend(quote_spanned! {ty.span()=>
                #krate::__private::assert_attribute::<#ty>();
            });
        }
    }
    let mut checked: Vec<usize> = Vec::new();
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        for (_, key) in index.keys() {
            for c in &key.composites {
                if checked.contains(&c.field) {
                    continue;
                }
                checked.push(c.field);
                if once_per_builtin(&mut builtins, "key", entity.fields[c.field].key_ty) {
                    checks.extend(composite_check(entity, c));
                }
            }
        }
    }
    checks
}

/// Whether to check `ty` for `check`: a `String`, `bool` or integer type
/// is checked once (it fails only if the name is shadowed, and then the
/// first error says so), any other type on every field.
fn once_per_builtin(seen: &mut Vec<String>, check: &str, ty: &syn::Type) -> bool {
    if !super::is_builtin_scalar(ty) {
        return true;
    }
    let text = format!("{check} {}", quote!(#ty));
    let first = !seen.contains(&text);
    seen.push(text);
    first
}

/// Re-spans the type so the error lands on the composite's name; chrono and
/// time types get checks whose errors say what to change.
fn composite_check(entity: &Entity, c: &crate::model::Composite) -> TokenStream {
    key_part_check(entity, entity.fields[c.field].key_ty, c.token)
}

/// Proves `ty` is a `KeyPart`, with the error at `span`.
pub fn key_part_check(
    entity: &Entity,
    field_ty: &syn::Type,
    span: proc_macro2::Span,
) -> TokenStream {
    let krate = &entity.krate;
    let ty = respan(quote!(#field_ty), span);
    let assert = match crate::model::type_name(field_ty).as_deref() {
        Some("DateTime" | "NaiveDateTime") => quote!(assert_chrono_key_part),
        Some("OffsetDateTime" | "PrimitiveDateTime" | "UtcDateTime") => {
            quote!(assert_time_key_part)
        }
        _ => quote!(assert_key_part),
    };
    quote_spanned! {span=>
        #krate::__private::#assert::<#ty>();
    }
}
