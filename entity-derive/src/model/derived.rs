//! Derived key parts: `{created_at:month}` writes a bucket of a timestamp
//! field (its year, month, day or hour) in place of the instant.

use proc_macro2::TokenStream;
use quote::quote;

/// The bucket a derived part writes, fixed width so buckets sort as time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// `2024`
    Year,
    /// `2024-01`
    Month,
    /// `2024-01-15`
    Day,
    /// `2024-01-15T10`
    Hour,
}

impl TimeUnit {
    pub const ALL: [TimeUnit; 4] = [
        TimeUnit::Year,
        TimeUnit::Month,
        TimeUnit::Day,
        TimeUnit::Hour,
    ];

    /// The option as written in a format: `{t:month}`.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Year => "year",
            TimeUnit::Month => "month",
            TimeUnit::Day => "day",
            TimeUnit::Hour => "hour",
        }
    }

    pub fn from_name(name: &str) -> Option<TimeUnit> {
        TimeUnit::ALL.into_iter().find(|u| u.name() == name)
    }

    /// The runtime's key part for the bucket text of a `ty` timestamp:
    /// `__private::Bucket<{ __private::BUCKET_MONTH }, ty>` (it parses only
    /// buckets of times a `ty` holds).
    pub fn key_part(self, krate: &TokenStream, ty: &syn::Type) -> TokenStream {
        let unit = match self {
            TimeUnit::Year => quote!(BUCKET_YEAR),
            TimeUnit::Month => quote!(BUCKET_MONTH),
            TimeUnit::Day => quote!(BUCKET_DAY),
            TimeUnit::Hour => quote!(BUCKET_HOUR),
        };
        quote!(#krate::__private::Bucket<{ #krate::__private::#unit }, #ty>)
    }
}
