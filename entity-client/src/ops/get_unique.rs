//! A lookup by a unique value (`client.get_unique(Customer::by_email(..))`):
//! the sentinel of [`super::unique`], then the item it names.

use super::unique::{owner_key, sentinel_key};
use super::visibility::{Shown, Visibility};
use crate::error::Result;
use crate::scoping::{Reaches, Scope};
use crate::Client;
use entity_core::managed::UniqueKey;
use entity_core::Entity;

/// A lookup by a unique value: the sentinel, then the item it names, both
/// strongly consistent GetItems.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app", unique(email))] #[pk(id)] struct Customer { id: String, email: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let found: Option<Customer> = client.get_unique(Customer::by_email("ada@example.com")).await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct GetUnique<E> {
    client: Client,
    key: UniqueKey<E>,
}

impl Client {
    /// `get_unique` for any entity, tenant or not: the tenant and
    /// cross-tenant clients' way in.
    pub(crate) fn get_unique_any<E: Entity>(&self, key: UniqueKey<E>) -> GetUnique<E> {
        GetUnique {
            client: self.clone(),
            key,
        }
    }
}

impl<S: Scope> Client<S> {
    /// Reads the item that holds a unique value (`Customer::by_email(..)`),
    /// strongly consistent; `None` when no item holds it.
    pub fn get_unique<E: Entity>(&self, key: UniqueKey<E>) -> GetUnique<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>().get_unique_any(self.scope.unique(key))
    }
}

impl<E: Entity + Send + 'static> GetUnique<E> {
    async fn send(self) -> Result<Option<E>> {
        if self.key.is_tenant_free() {
            return Err(crate::ValidationError::InvalidRequest(format!(
                "the lookup of {}'s `{}` has no tenant: read it through `client.tenant(..).get_unique(..)`, or complete it with `.for_tenant(..)`",
                E::MODEL.name,
                self.key.constraint().name
            ))
            .into());
        }
        let key = sentinel_key::<E>(self.key.constraint(), self.key.value());
        let sentinel = self.client.get_raw(E::MODEL.name, key, true).await?;
        let Some(owner) = sentinel.and_then(owner_key::<E>) else {
            return Ok(None);
        };
        let item = self.client.get_raw(E::MODEL.name, owner, true).await?;
        // Like `get`: an expired or soft-deleted owner is not returned.
        let visibility = Visibility::of::<E>(&self.client, Shown::default());
        let Some(item) = item.filter(|item| visibility.shows(item)) else {
            return Ok(None);
        };
        let entity = E::from_item(item)?;
        // The sentinel and the item are read one after the other: keep the
        // item only if it still holds the value.
        let index = E::MODEL
            .managed
            .unique
            .iter()
            .position(|c| c.name == self.key.constraint().name);
        let holds = index
            .and_then(|i| entity.unique_values().into_iter().nth(i).flatten())
            .is_some_and(|value| value == self.key.value());
        Ok(holds.then_some(entity))
    }
}

impl<E: Entity + Send + 'static> crate::ops::operation::Operation for GetUnique<E> {
    type Output = Option<E>;
    const READS_FIRST: bool = false;

    fn describe(&self) -> crate::trace::Op<'_> {
        crate::trace::Op {
            operation: "get_unique",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl std::future::Future<Output = Result<Option<E>>> + Send + 'static {
        self.send()
    }
}

crate::ops::operation::operation!([E: Entity + Send + 'static] GetUnique<E> => Option<E>);
