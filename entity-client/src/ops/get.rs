//! `get`: one item by its table key.

use super::operation::{operation, Operation};
use super::visibility::{Shown, Visibility};
use crate::error::{from_sdk, Result};
use crate::limits::check_primary_key;
use crate::scoping::{Reaches, Scope, ScopeKey};
use crate::trace::Op;
use crate::Client;
use entity_core::{Entity, Item, PrimaryKey};
use futures::future::Either;
use futures::FutureExt;
use std::future::Future;

/// A GetItem. `.await` returns the entity, or `None` when there is no item
/// with that key.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let doc: Option<Doc> = client.get(Doc::key("d1")).consistent_read(true).await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct Get<E> {
    client: Client,
    key: PrimaryKey<E>,
    consistent: bool,
    shown: Shown,
}

impl Client {
    /// One GetItem of the raw item at `key` (the one GetItem every read of
    /// an item sends, typed or not).
    pub(crate) fn get_raw(
        &self,
        entity: &'static str,
        key: Item,
        consistent: bool,
    ) -> impl Future<Output = Result<Option<Item>>> + Send + 'static {
        // The SDK's future itself, mapped, not awaited inside another
        // (the caller's own future is the only one around it).
        match self.checked_table() {
            Ok(table) => Either::Left(
                (self.inner.sdk.get_item().table_name(table))
                    .set_key(Some(key))
                    .consistent_read(consistent)
                    .send()
                    .map(move |sent| match sent {
                        Ok(output) => Ok(output.item),
                        Err(e) => Err(from_sdk("GetItem", entity, e)),
                    }),
            ),
            Err(e) => Either::Right(std::future::ready(Err(e.into()))),
        }
    }

    /// `get` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn get_any<E: Entity>(&self, key: PrimaryKey<E>) -> Get<E> {
        Get {
            client: self.clone(),
            key,
            consistent: false,
            shown: Shown::default(),
        }
    }
}

impl<S: Scope> Client<S> {
    /// Reads one item by its table key.
    pub fn get<E: Entity>(&self, key: impl ScopeKey<E, S>) -> Get<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>().get_any(key.complete(&self.scope))
    }
}

impl<E: Entity + Send + 'static> Get<E> {
    /// A strongly consistent read.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    crate::ops::visibility::shown_methods!();

    async fn send(self) -> Result<Option<E>> {
        let visibility = Visibility::of::<E>(&self.client, self.shown);
        check_primary_key(&self.key)?;
        let item = (self.client)
            .get_raw(E::MODEL.name, self.key.to_item(), self.consistent)
            .await?;
        match item {
            Some(item) if visibility.shows(&item) => Ok(Some(E::from_item(item)?)),
            _ => Ok(None),
        }
    }
}

impl<E: Entity + Send + 'static> Operation for Get<E> {
    type Output = Option<E>;
    const READS_FIRST: bool = false;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "get",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<Option<E>>> + Send + 'static {
        self.send()
    }
}

operation!([E: Entity + Send + 'static] Get<E> => Option<E>);

/// Some attributes of an item, read through the entity's field handles.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, title: String, views: u32 }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let f = Doc::fields();
/// if let Some(doc) = client.get(Doc::key("d1")).project([f.title.name()]).await? {
///     let title: String = doc.get(f.title)?;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Projection<E> {
    item: entity_core::Item,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: Entity> Projection<E> {
    pub(crate) fn new(item: entity_core::Item) -> Self {
        Self {
            item,
            entity: std::marker::PhantomData,
        }
    }

    /// One field's value. A field that was not projected reads as absent:
    /// `None` for an optional field, an error for a required one; a value
    /// that does not convert is an error. A compressed field
    /// (`#[entity(compress)]`) reads compressed or not, as a whole read
    /// does.
    pub fn get<T: entity_core::FromAttribute, M>(
        &self,
        attr: entity_core::expr::Attr<E, T, M>,
    ) -> std::result::Result<T, entity_core::DecodeError> {
        let fail = |source| entity_core::DecodeError::Attribute {
            entity: E::MODEL.name,
            attribute: attr.name(),
            source,
        };
        let compressed =
            (E::MODEL.fields.iter()).any(|f| f.compressed && f.attribute == attr.name());
        match self.item.get(attr.name()) {
            Some(value) if compressed => {
                use entity_core::compress::{decode_as, ReadError};
                decode_as(value.clone()).map_err(|e| match e {
                    ReadError::Attribute(source) => fail(source),
                    ReadError::Compression(source) => entity_core::DecodeError::Compressed {
                        entity: E::MODEL.name,
                        attribute: attr.name(),
                        source,
                    },
                })
            }
            Some(value) => T::from_attribute(value.clone()).map_err(fail),
            None => T::from_missing().ok_or_else(|| fail(entity_core::AttributeError::Missing)),
        }
    }

    /// The raw attributes.
    pub fn into_item(self) -> entity_core::Item {
        self.item
    }
}

/// A GetItem of some attributes only.
#[must_use = "a request does nothing until it is awaited"]
pub struct GetProjected<E> {
    get: Get<E>,
    attributes: Vec<&'static str>,
}

impl<E: Entity + Send + 'static> Get<E> {
    /// Reads only these attributes (from the entity's field handles:
    /// `f.title.name()`). The item is checked as a whole get checks it:
    /// another entity's item (or a history snapshot) is an
    /// `Error::Decode`; an item of an older entity version is read whole,
    /// upgraded through `upgrade_from` (or refused without one), and
    /// projected from the entity it reads as.
    pub fn project(self, attributes: impl IntoIterator<Item = &'static str>) -> GetProjected<E> {
        GetProjected {
            get: self,
            attributes: attributes.into_iter().collect(),
        }
    }
}

impl<E: Entity + Send + 'static> GetProjected<E> {
    async fn send(self) -> Result<Option<Projection<E>>> {
        let get = self.get;
        check_primary_key(&get.key)?;
        let visibility = Visibility::of::<E>(&get.client, get.shown);
        let mut placeholders = entity_core::expr::Placeholders::default();
        // The attributes that say whether the item is shown, and whose
        // entity and version it is, are read too.
        let mut attributes = self.attributes.clone();
        let model = E::MODEL;
        for attribute in visibility
            .attributes()
            .chain([model.identity_attribute, model.version_attribute])
        {
            if !attributes.contains(&attribute) {
                attributes.push(attribute);
            }
        }
        let projection: Vec<String> = attributes.iter().map(|a| placeholders.name(a)).collect();
        let rendered = placeholders.finish();
        let output = get
            .client
            .inner
            .sdk
            .get_item()
            .table_name(get.client.checked_table()?)
            .set_key(Some(get.key.to_item()))
            .consistent_read(get.consistent)
            .projection_expression(projection.join(", "))
            .set_expression_attribute_names(rendered.names)
            .send()
            .await
            .map_err(|e| from_sdk("GetItem", E::MODEL.name, e))?;
        let Some(mut item) = output.item.filter(|item| visibility.shows(item)) else {
            return Ok(None);
        };
        match entity_core::__private::check_item(&item, model) {
            // Only what was asked for is handed back.
            Ok(()) => {
                item.retain(|name, _| self.attributes.contains(&name.as_str()));
                Ok(Some(Projection::new(item)))
            }
            // Another entity's item (or a history snapshot) is refused as
            // a whole get refuses it.
            Err(e @ entity_core::DecodeError::WrongEntity { .. }) => Err(e.into()),
            // An item of another version is read whole, as a get reads it
            // (upgraded through `upgrade_from`, or refused), and projected
            // from the entity it reads as.
            Err(_) => {
                let whole = get.await?;
                whole
                    .map(|entity| {
                        let mut item = entity.to_item()?;
                        item.retain(|name, _| self.attributes.contains(&name.as_str()));
                        Ok(Projection::new(item))
                    })
                    .transpose()
            }
        }
    }
}

/// A projected get is a `get`: its span and its one GetItem are the get's.
impl<E: Entity + Send + 'static> Operation for GetProjected<E> {
    type Output = Option<Projection<E>>;
    const READS_FIRST: bool = false;

    fn describe(&self) -> Op<'_> {
        self.get.describe()
    }

    fn client_mut(&mut self) -> &mut Client {
        self.get.client_mut()
    }

    fn execute(self) -> impl Future<Output = Result<Option<Projection<E>>>> + Send + 'static {
        self.send()
    }
}

operation!([E: Entity + Send + 'static] GetProjected<E> => Option<Projection<E>>);
