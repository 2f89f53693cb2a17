//! An update of an entity that keeps history: a read-modify-write whose
//! write carries the snapshot of the version it writes.

use super::history::companions;
use super::managed::version_of;
use super::rmw::{read_modify_write, Current, Start, Step};
use super::Companion;
use crate::error::Result;
use crate::Client;
use entity_core::{Entity, Item, PrimaryKey};

/// An update of an entity that keeps history: the snapshot of the version
/// it writes goes in the same transaction, so the item it leaves must be
/// known. The item is read (strongly consistent), the update applied to it
/// in memory, and the write conditioned on the version read; another write
/// in between is read again and retried (unless the caller expects a
/// version: then it is a `VersionConflict`).
pub(crate) struct HistoryUpdate<'a, E> {
    pub client: &'a Client,
    pub key: &'a PrimaryKey<E>,
    /// The update as sent, managed fields stamped.
    pub completed: entity_core::expr::Update<E>,
    pub condition: Option<entity_core::expr::Condition<E>>,
    pub expected: Option<u64>,
    pub must_exist: bool,
    pub token: Option<String>,
    /// A tenant client's guard against writing over another entity's item.
    pub identity: Option<super::single::IdentityGuard>,
}

impl<E: Entity> HistoryUpdate<'_, E> {
    /// Sends it with the snapshot and the `extra` writes the stored item
    /// calls for; the item before and after.
    pub(crate) async fn send(
        self,
        extra: impl Fn(&Current<E>) -> Result<Vec<Companion>>,
    ) -> Result<(Option<Item>, Item)> {
        let entity = E::MODEL.name;
        let version = E::MODEL
            .managed
            .version
            .unwrap_or(E::MODEL.version_attribute);
        let mut read = 0;
        let start = Start::Read(self.key, self.identity);
        let sent = read_modify_write(self.client, start, |current| {
            if self.must_exist && current.item.is_none() {
                return Err(crate::Error::NotFound { entity });
            }
            read = current
                .item
                .as_ref()
                .map_or(0, |item| version_of(item, version));
            if let Some(expected) = self.expected.filter(|expected| *expected != read) {
                return Err(crate::Error::VersionConflict {
                    entity,
                    expected,
                    found: current.item.as_ref().map(|_| read),
                    current: current.item.clone().map(Box::new),
                });
            }
            let mut new = current.item.clone().unwrap_or_else(|| self.key.to_item());
            self.completed
                .apply_to(&mut new)
                .map_err(|source| crate::ValidationError::Value {
                    context: "history snapshot",
                    source,
                })?;
            let condition = super::and(
                self.condition.clone(),
                Some(super::managed::version_condition::<E>(version, read)),
            );
            let rendered = super::render::render_completed(self.completed.clone(), condition)?;
            let mut write = super::single::SingleWrite::new(
                entity,
                super::single::Action::Update {
                    key: self.key.to_item(),
                    expression: rendered.expression,
                },
                rendered.expressions,
            );
            write.token = self.token.clone();
            write.identity = self.identity;
            write.companions = companions::<E>(self.client, &new)?;
            write.companions.extend(extra(current)?);
            Ok(Step::Send(write, (current.item.clone(), new)))
        })
        .await;
        match sent {
            Ok((before_after, _)) => Ok(before_after),
            Err(e) => Err(super::managed::version_conflict::<E>(e, Some(read))),
        }
    }
}
