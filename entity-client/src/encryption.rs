//! Field encryption with the AWS Database Encryption SDK for DynamoDB
//! (feature `encryption`): `#[entity(encrypt)]` fields are encrypted and
//! signed on the client, in the SDK's own item format, so items written
//! here decrypt with its item encryptor (and its Java, Python and .NET
//! siblings) and the other way round.
//!
//! [`Encryption`] holds a keyring; [`Client::with_encryption`] derives the
//! table's encryption configuration from the entity models and returns a
//! client whose every request goes through the SDK's interceptor:
//!
//! - the table's partition and sort key attributes are signed
//!   (`SIGN_ONLY`), each encrypted field's attribute encrypted and signed
//!   (`ENCRYPT_AND_SIGN`), and every other attribute the models write
//!   (index keys, plain fields, the client's own `__` attributes) left
//!   alone, so that updates of plain fields, soft deletes and version bumps
//!   work as ever;
//! - an attribute one entity encrypts and another stores plain, or an index
//!   that projects less than whole items (its items hold no signature to
//!   verify), is refused with [`ValidationError::TableDesign`];
//! - a tampered item, or one the keyring cannot decrypt, fails the read
//!   with [`Error::Encryption`]; a plain-text item is refused too, unless
//!   [`Encryption::allow_plaintext_reads`] is on (while a table's items are
//!   being encrypted).
//!
//! What the derive refuses at compile time: an encrypted key or index
//! composite, unique value, managed or lifecycle field, or projected field;
//! a condition, filter or update `set` of an encrypted field (its role is
//! `expr::Encrypted`). An encrypted entity's `upsert` is a whole-item put.
//! A client without encryption refuses to write an entity with encrypted
//! fields ([`Error::EncryptionNotConfigured`]).
//!
//! The guide ([`crate::guide::encryption`]) has a runnable example.

use crate::error::{Error, Result, ValidationError};
use crate::scoping::Scope;
use crate::Client;
pub use aws_db_esdk;
use aws_db_esdk::dynamodb::types::{DynamoDbTableEncryptionConfig, PlaintextOverride};
use aws_db_esdk::intercept::DbEsdkInterceptor;
use aws_db_esdk::item_encryptor::types::dynamo_db_item_encryptor_config::DynamoDbItemEncryptorConfig;
use aws_db_esdk::material_providers::client as mpl;
use aws_db_esdk::material_providers::types::keyring::KeyringRef;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;
use aws_db_esdk::material_providers::types::{AesWrappingAlg, DbeAlgorithmSuiteId};
use aws_db_esdk::{CryptoAction, DynamoDbTablesEncryptionConfig};
use entity_core::model::IndexProjection;
use entity_core::EntityModel;
use std::collections::{BTreeSet, HashMap};

/// The prefix of the attributes the client writes of its own (`__entity`,
/// `__version`, `__deleted_at`, unique sentinels' and history's): left
/// alone by encryption.
const CLIENT_PREFIX: &str = "__";

/// The one configuration, on the table config's builder or the item
/// encryptor's (two types with the same setters).
macro_rules! configured {
    ($encryption:expr, $builder:expr, $table:expr, $models:expr) => {{
        let design = Design::of($models)?;
        $builder
            .logical_table_name($table)
            .partition_key_name(design.partition_key)
            .set_sort_key_name(design.sort_key.map(str::to_owned))
            .attribute_actions_on_encrypt(design.actions)
            .allowed_unsigned_attributes(design.unsigned)
            .allowed_unsigned_attribute_prefix(CLIENT_PREFIX)
            .keyring($encryption.keyring.clone())
            .plaintext_override($encryption.plaintext())
            .set_algorithm_suite_id($encryption.suite)
            .build()
            .map_err(|e| config_error(&e))
    }};
}

/// A keyring, and how reads treat plain-text items.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use entity_client::encryption::Encryption;
///
/// // A 256-bit key from your key store (an HSM, a secrets manager): never
/// // a constant in code.
/// let key = [7u8; 32];
/// let encryption = Encryption::raw_aes("my-app", "data-key-1", key).await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Encryption {
    keyring: KeyringRef,
    plaintext_reads: bool,
    suite: Option<DbeAlgorithmSuiteId>,
}

impl Encryption {
    /// Encryption with any keyring of the Material Providers Library
    /// (`aws_db_esdk::material_providers`): AWS KMS, hierarchical, raw AES
    /// or RSA, multi-keyrings.
    pub fn new(keyring: KeyringRef) -> Self {
        Self {
            keyring,
            plaintext_reads: false,
            suite: None,
        }
    }

    /// Encryption with a raw AES-256-GCM wrapping key, named by `namespace`
    /// and `name` (the names are stored with each item's data key, and a
    /// reader's keyring must name the key alike). No AWS call is made.
    pub async fn raw_aes(namespace: &str, name: &str, key: [u8; 32]) -> Result<Self> {
        let config = MaterialProvidersConfig::builder()
            .build()
            .map_err(|e| keyring_error(&e))?;
        let providers = mpl::Client::from_conf(config).map_err(|e| keyring_error(&e))?;
        let keyring = providers
            .create_raw_aes_keyring()
            .key_namespace(namespace)
            .key_name(name)
            .wrapping_key(key.to_vec())
            .wrapping_alg(AesWrappingAlg::AlgAes256GcmIv12Tag16)
            .send()
            .await
            .map_err(|e| keyring_error(&e))?;
        Ok(Self::new(keyring))
    }

    /// Whether reads accept items stored in plain text (written before the
    /// table's items were encrypted); writes are always encrypted. Off by
    /// default: an item whose signature was stripped reads as an error.
    pub fn allow_plaintext_reads(mut self, allow: bool) -> Self {
        self.plaintext_reads = allow;
        self
    }

    /// The algorithm suite items are written with. The SDK's default
    /// signs each item with ECDSA P-384 beside its HMAC, so that readers
    /// holding the data key cannot forge items;
    /// `AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384` signs with the
    /// HMAC alone, for tables whose readers are trusted writers too: about
    /// 30% less client time per item in our benchmark (the benchmarks
    /// guide has both). Items written with either suite read with either
    /// configuration.
    pub fn algorithm_suite(mut self, suite: DbeAlgorithmSuiteId) -> Self {
        self.suite = Some(suite);
        self
    }

    /// The keyring.
    pub fn keyring(&self) -> &KeyringRef {
        &self.keyring
    }

    /// The Database Encryption SDK's configuration of `table` for the
    /// entities `models` (every entity stored in the table).
    pub fn table_config(
        &self,
        table: &str,
        models: &[&EntityModel],
    ) -> Result<DynamoDbTableEncryptionConfig> {
        configured!(
            self,
            DynamoDbTableEncryptionConfig::builder(),
            table,
            models
        )
    }

    /// The same configuration for the SDK's item encryptor, which encrypts
    /// and decrypts items without sending them (items of a stream, or
    /// written by another program).
    pub fn item_encryptor_config(
        &self,
        table: &str,
        models: &[&EntityModel],
    ) -> Result<DynamoDbItemEncryptorConfig> {
        configured!(self, DynamoDbItemEncryptorConfig::builder(), table, models)
    }

    /// How reads treat plain-text items.
    fn plaintext(&self) -> PlaintextOverride {
        match self.plaintext_reads {
            true => PlaintextOverride::ForbidPlaintextWriteAllowPlaintextRead,
            false => PlaintextOverride::ForbidPlaintextWriteForbidPlaintextRead,
        }
    }
}

/// What the models say of each attribute.
struct Design {
    partition_key: &'static str,
    sort_key: Option<&'static str>,
    actions: HashMap<String, CryptoAction>,
    unsigned: Vec<String>,
}

impl Design {
    fn of(models: &[&EntityModel]) -> Result<Self> {
        let first = models.first().ok_or_else(|| {
            ValidationError::TableDesign(
                "encryption needs the models of the table's entities".into(),
            )
        })?;
        let partition_key = first.primary.pk.attribute;
        let sort_key = first.primary.sk.map(|sk| sk.attribute);
        let mut actions = HashMap::from([(partition_key.to_owned(), CryptoAction::SignOnly)]);
        if let Some(sk) = sort_key {
            actions.insert(sk.to_owned(), CryptoAction::SignOnly);
        }
        let mut encrypted: HashMap<&str, &str> = HashMap::new();
        let mut signed: HashMap<&str, &str> = HashMap::new();
        let mut plain: HashMap<&str, &str> = HashMap::new();
        for model in models {
            let keys = (
                model.primary.pk.attribute,
                model.primary.sk.map(|k| k.attribute),
            );
            if keys != (partition_key, sort_key) {
                return Err(design_error(format!(
                    "{} and {} have different table keys: one table has one key",
                    first.name, model.name
                )));
            }
            for index in model.indexes {
                if index.projection != IndexProjection::All {
                    return Err(design_error(format!(
                        "index `{}` of {} projects {}: its items hold no signature to verify, so an encrypted table's indexes project ALL",
                        index.index_name.unwrap_or(index.name),
                        model.name,
                        index.projection.as_str()
                    )));
                }
            }
            for field in model.fields {
                match (field.encrypted, field.signed) {
                    (true, _) => encrypted.insert(field.attribute, model.name),
                    (false, true) => signed.insert(field.attribute, model.name),
                    (false, false) => plain.insert(field.attribute, model.name),
                };
            }
            for attribute in model.key_attributes() {
                plain.insert(attribute, model.name);
            }
        }
        for (attribute, by) in &encrypted {
            if let Some(other) = plain.get(attribute) {
                return Err(design_error(format!(
                    "attribute `{attribute}` is encrypted by {by} and stored plain by {other}: rename one of the fields"
                )));
            }
            actions.insert((*attribute).to_owned(), CryptoAction::EncryptAndSign);
        }
        for (attribute, by) in &signed {
            let other = plain.get(attribute).or(encrypted.get(attribute));
            if let Some(other) = other.filter(|_| !actions.contains_key(*attribute)) {
                return Err(design_error(format!(
                    "attribute `{attribute}` is signed by {by} and stored otherwise by {other}: rename one of the fields"
                )));
            }
            actions
                .entry((*attribute).to_owned())
                .or_insert(CryptoAction::SignOnly);
        }
        let unsigned: BTreeSet<String> = plain
            .keys()
            .filter(|a| !actions.contains_key(**a) && !a.starts_with(CLIENT_PREFIX))
            .map(|a| (*a).to_owned())
            .collect();
        Ok(Self {
            partition_key,
            sort_key,
            actions,
            unsigned: unsigned.into_iter().collect(),
        })
    }
}

fn design_error(message: String) -> Error {
    ValidationError::TableDesign(message).into()
}

fn config_error(error: &impl std::fmt::Debug) -> Error {
    design_error(format!("encryption configuration: {error:?}"))
}

fn keyring_error(error: &impl std::fmt::Debug) -> Error {
    Error::Encryption {
        operation: "keyring",
        reason: format!("{error:?}"),
    }
}

impl<S: Scope> Client<S> {
    /// This client, encrypting: `#[entity(encrypt)]` fields of `models`
    /// (every entity stored in the table) are encrypted and signed on
    /// write, and every item read is verified and decrypted (see the
    /// [module](crate::encryption)). The scope, settings and statistics are
    /// kept; tenant clients made from it encrypt too.
    ///
    /// ```no_run
    /// # async fn demo(client: entity_client::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use entity_client::encryption::Encryption;
    /// use entity_client::Entity;
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "clinic")]
    /// #[pk(patient_id)]
    /// struct Patient {
    ///     patient_id: String,
    ///     name: String,
    ///     #[entity(encrypt)]
    ///     diagnosis: String,
    /// }
    ///
    /// let encryption = Encryption::raw_aes("clinic", "key-1", [7; 32]).await?;
    /// let client = client.with_encryption(&encryption, &[Patient::MODEL])?;
    /// # Ok(()) }
    /// ```
    pub fn with_encryption(
        &self,
        encryption: &Encryption,
        models: &[&EntityModel],
    ) -> Result<Self> {
        let table = self.checked_table()?.to_owned();
        let config = encryption.table_config(&table, models)?;
        let tables = DynamoDbTablesEncryptionConfig::builder()
            .table_encryption_configs(HashMap::from([(table, config)]))
            .build()
            .map_err(|e| config_error(&e))?;
        let interceptor = DbEsdkInterceptor::new(tables).map_err(|e| config_error(&e))?;
        Ok(self.intercepted(interceptor, |inner| inner.encrypts = true))
    }
}
