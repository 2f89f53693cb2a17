//! Whole-item writes and deletes: `put`, `create`, `upsert`, `delete`,
//! `remove`.

use super::{
    and, condition_only, exists, is_table_key, missing_as_not_found, not_exists, render_condition,
    BoxFuture, Conditional, Expressions, ReturnNothing, ReturnOld, Returning,
};
use crate::error::{from_sdk, Result};
use crate::limits::{check_item, check_primary_key};
use crate::Client;
use entity_core::expr::{Condition, Placeholders, Update};
use entity_core::{Entity, Item, PrimaryKey};
use std::future::IntoFuture;
use std::marker::PhantomData;

/// A PutItem: `put` replaces the item, `create` fails if it exists.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, views: u32 }
/// # async fn demo(client: Client, doc: Doc) -> entity_client::Result<()> {
/// let f = Doc::fields();
/// client.put(&doc).condition(f.views.lt(10u32)).await?;
/// let previous: Option<Doc> = client.put(&doc).return_old().await?;
/// client.create(&doc).await?; // Error::ConditionFailed if it exists
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct Put<E, R = ReturnNothing> {
    client: Client,
    item: Result<Item>,
    condition: Option<Condition<E>>,
    returning: PhantomData<R>,
}

impl Client {
    /// Writes the whole item, replacing any item with the same key.
    pub fn put<E: Entity>(&self, entity: &E) -> Put<E> {
        Put {
            client: self.clone(),
            item: entity.to_item().map_err(Into::into),
            condition: None,
            returning: PhantomData,
        }
    }

    /// Writes the item only if no item has its key
    /// (`Error::ConditionFailed`, with the existing item, otherwise).
    pub fn create<E: Entity>(&self, entity: &E) -> Put<E> {
        let mut put = self.put(entity);
        put.condition = Some(not_exists::<E>());
        put
    }

    /// Writes every field of the entity into the item with its key, creating
    /// it if missing and leaving attributes the entity does not own in place
    /// (an UpdateItem). Fields that are `None` are removed.
    pub fn upsert<E: Entity>(&self, entity: &E) -> Upsert<E> {
        Upsert {
            client: self.clone(),
            key: entity.primary_key(),
            item: entity.to_item().map_err(Into::into),
            condition: None,
        }
    }

    /// Deletes the item with this key, if any.
    pub fn delete<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        Delete {
            client: self.clone(),
            key,
            condition: None,
            must_exist: false,
            returning: PhantomData,
        }
    }

    /// Deletes the item with this key; `Error::NotFound` if there is none.
    pub fn remove<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        Delete {
            client: self.clone(),
            key,
            condition: Some(exists::<E>()),
            must_exist: true,
            returning: PhantomData,
        }
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> Put<E, R> {
    /// Writes only if `condition` holds (`Error::ConditionFailed`
    /// otherwise, with the stored item).
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = and(self.condition.take(), Some(condition));
        self
    }

    /// Returns the item that was replaced, if any.
    pub fn return_old(self) -> Put<E, ReturnOld> {
        Put {
            client: self.client,
            item: self.item,
            condition: self.condition,
            returning: PhantomData,
        }
    }

    async fn send(self) -> Result<R::Output> {
        let item = self.item?;
        check_item(E::MODEL, &item)?;
        let expressions = condition_only(self.condition.as_ref(), "put condition")?;
        let output = self
            .client
            .inner
            .sdk
            .put_item()
            .table_name(self.client.checked_table()?)
            .set_item(Some(item))
            .expressions(expressions)
            .return_values(R::return_value())
            .send()
            .await
            .map_err(|e| from_sdk("PutItem", E::MODEL.name, e))?;
        R::output(E::MODEL.name, output.attributes)
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> IntoFuture for Put<E, R> {
    type Output = Result<R::Output>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

/// An upsert: every field written with UpdateItem.
#[must_use = "a request does nothing until it is awaited"]
pub struct Upsert<E> {
    client: Client,
    key: PrimaryKey<E>,
    item: Result<Item>,
    condition: Option<Condition<E>>,
}

impl<E: Entity + Send + 'static> Upsert<E> {
    /// Writes only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = and(self.condition.take(), Some(condition));
        self
    }

    /// The UpdateItem's changes: every attribute of the item but the table
    /// key; `REMOVE` for fields that are absent.
    pub(crate) fn changes(item: Item) -> (Update<E>, Vec<&'static str>) {
        let mut update = Update::new();
        let mut removed = Vec::new();
        for field in E::MODEL.fields {
            if !item.contains_key(field.attribute) {
                removed.push(field.attribute);
            }
        }
        for (name, value) in item {
            if !is_table_key::<E>(&name) {
                update = entity_core::__private::update_set_raw(update, &name, value);
            }
        }
        (update, removed)
    }

    async fn send(self) -> Result<()> {
        let item = self.item?;
        check_item(E::MODEL, &item)?;
        let (update, removed) = Self::changes(item);
        let mut placeholders = Placeholders::default();
        let mut expression =
            update
                .render(&mut placeholders)
                .map_err(|source| crate::ValidationError::Value {
                    context: "upsert",
                    source,
                })?;
        if !removed.is_empty() {
            let names: Vec<String> = removed.iter().map(|a| placeholders.name(a)).collect();
            expression.push_str(&format!(" REMOVE {}", names.join(", ")));
        }
        let condition = render_condition(
            self.condition.as_ref(),
            &mut placeholders,
            "upsert condition",
        )?;
        self.client
            .inner
            .sdk
            .update_item()
            .table_name(self.client.checked_table()?)
            .set_key(Some(self.key.to_item()))
            .update_expression(expression)
            .expressions(Expressions::new(condition, placeholders))
            .send()
            .await
            .map_err(|e| from_sdk("UpdateItem", E::MODEL.name, e))?;
        Ok(())
    }
}

impl<E: Entity + Send + 'static> IntoFuture for Upsert<E> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

/// A DeleteItem: `delete` succeeds whether or not the item exists,
/// `remove` fails with `Error::NotFound` when it does not.
#[must_use = "a request does nothing until it is awaited"]
pub struct Delete<E, R = ReturnNothing> {
    client: Client,
    key: PrimaryKey<E>,
    condition: Option<Condition<E>>,
    must_exist: bool,
    returning: PhantomData<R>,
}

impl<E: Entity + Send + 'static, R: Returning<E>> Delete<E, R> {
    /// Deletes only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = and(self.condition.take(), Some(condition));
        self
    }

    /// Returns the deleted item, if any.
    pub fn return_old(self) -> Delete<E, ReturnOld> {
        Delete {
            client: self.client,
            key: self.key,
            condition: self.condition,
            must_exist: self.must_exist,
            returning: PhantomData,
        }
    }

    async fn send(self) -> Result<R::Output> {
        check_primary_key(&self.key)?;
        let expressions = condition_only(self.condition.as_ref(), "delete condition")?;
        let result = self
            .client
            .inner
            .sdk
            .delete_item()
            .table_name(self.client.checked_table()?)
            .set_key(Some(self.key.to_item()))
            .expressions(expressions)
            .return_values(R::return_value())
            .send()
            .await
            .map_err(|e| from_sdk("DeleteItem", E::MODEL.name, e));
        let output = match result {
            Err(e) if self.must_exist => return Err(missing_as_not_found(e)),
            other => other?,
        };
        R::output(E::MODEL.name, output.attributes)
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> IntoFuture for Delete<E, R> {
    type Output = Result<R::Output>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}
