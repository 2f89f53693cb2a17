//! `StreamReader`: every record a table's stream holds, read through
//! `aws-sdk-dynamodbstreams` (DescribeStream, GetShardIterator, GetRecords),
//! following the shards from parents to children. For tests, tools and
//! backfills; a service that follows a stream as it grows is better served
//! by Lambda (see the `lambda` feature) or the Kinesis adapter, which keep
//! leases and checkpoints.

use super::StreamError;
use crate::error::{from_sdk, Result};
use crate::Client;
use aws_sdk_dynamodbstreams::types::{Record, Shard, ShardIteratorType};
use std::collections::HashSet;

/// Reads a table's stream from its oldest record.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # use entity_client::streams::{self, Change, StreamReader};
/// # #[derive(Entity, Debug)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let streams_sdk = streams::local_streams_client("http://127.0.0.1:8000"); // or from aws-config
/// let reader = StreamReader::latest(&client, streams_sdk).await?;
/// let records = reader.read_all().await?;
/// for change in streams::decode_all::<Doc, _>(&records) {
///     match change? {
///         Change::Insert(doc) => println!("new {doc:?}"),
///         Change::Modify { old, new } => println!("{old:?} -> {new:?}"),
///         Change::Remove(doc) => println!("gone {doc:?}"),
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct StreamReader {
    sdk: aws_sdk_dynamodbstreams::Client,
    stream_arn: String,
}

impl StreamReader {
    /// A reader of the stream `stream_arn`.
    pub fn new(sdk: aws_sdk_dynamodbstreams::Client, stream_arn: impl Into<String>) -> Self {
        Self {
            sdk,
            stream_arn: stream_arn.into(),
        }
    }

    /// A reader of the latest stream of `client`'s table (its
    /// `LatestStreamArn`); [`StreamError::NoStream`] when it has none.
    pub async fn latest(client: &Client, sdk: aws_sdk_dynamodbstreams::Client) -> Result<Self> {
        let table = client.checked_table()?;
        let described = client
            .sdk()
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| from_sdk("DescribeTable", "table", e).in_table(table))?;
        match described.table.and_then(|t| t.latest_stream_arn) {
            Some(arn) => Ok(Self::new(sdk, arn)),
            None => Err(StreamError::NoStream {
                table: table.to_owned(),
            }
            .into()),
        }
    }

    /// The stream's ARN.
    pub fn stream_arn(&self) -> &str {
        &self.stream_arn
    }

    /// Every record the stream holds now, oldest first: each shard from its
    /// trim horizon, a shard after its parent, until a closed shard ends or
    /// an open one answers a page with no records. Records of one item come
    /// in the order they were written.
    pub async fn read_all(&self) -> Result<Vec<Record>> {
        let mut records = Vec::new();
        for shard in parents_first(self.shards().await?) {
            self.read_shard(&shard, &mut records).await?;
        }
        Ok(records)
    }

    /// Every shard of the stream (DescribeStream, all pages).
    async fn shards(&self) -> Result<Vec<Shard>> {
        let mut shards = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let page = self
                .sdk
                .describe_stream()
                .stream_arn(&self.stream_arn)
                .set_exclusive_start_shard_id(start)
                .send()
                .await
                .map_err(|e| service("DescribeStream", e))?;
            let Some(description) = page.stream_description else {
                return Ok(shards);
            };
            shards.extend(description.shards.unwrap_or_default());
            start = description.last_evaluated_shard_id;
            if start.is_none() {
                return Ok(shards);
            }
        }
    }

    async fn read_shard(&self, shard: &Shard, records: &mut Vec<Record>) -> Result<()> {
        let Some(shard_id) = shard.shard_id() else {
            return Ok(());
        };
        let ending = shard
            .sequence_number_range()
            .and_then(|range| range.ending_sequence_number());
        let mut iterator = self
            .sdk
            .get_shard_iterator()
            .stream_arn(&self.stream_arn)
            .shard_id(shard_id)
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .map_err(|e| service("GetShardIterator", e))?
            .shard_iterator;
        let mut last: Option<String> = None;
        let mut empty_pages = 0;
        while let Some(current) = iterator {
            let page = self
                .sdk
                .get_records()
                .shard_iterator(current)
                .send()
                .await
                .map_err(|e| service("GetRecords", e))?;
            let page_records = page.records.unwrap_or_default();
            if let Some(number) = page_records
                .last()
                .and_then(|r| r.dynamodb()?.sequence_number())
            {
                last = Some(number.to_owned());
            }
            empty_pages = if page_records.is_empty() {
                empty_pages + 1
            } else {
                0
            };
            records.extend(page_records);
            // An open shard always gives a next iterator: its end for now is
            // its first empty page. A closed shard ends without one, or (on
            // servers that report the last record written as the end of an
            // open shard) once its ending record was read; DynamoDB may
            // answer empty pages before a closed shard's end, so a few are
            // read past.
            let done = empty_pages > 0
                && match ending {
                    None => true,
                    Some(end) => {
                        last.as_deref().is_some_and(|l| !precedes(l, end))
                            || empty_pages >= CLOSED_SHARD_EMPTY_PAGES
                    }
                };
            iterator = page.next_shard_iterator.filter(|_| !done);
        }
        Ok(())
    }
}

/// Empty pages read from a closed shard before its ending record is taken
/// to be gone (trimmed).
const CLOSED_SHARD_EMPTY_PAGES: u32 = 10;

/// Whether sequence number `a` comes before `b` (decimal digits, up to
/// 40 of them: compared by length, then as text).
fn precedes(a: &str, b: &str) -> bool {
    (a.len(), a) < (b.len(), b)
}

/// The shards ordered so that each comes after its parent (when the
/// stream still lists the parent), otherwise as listed.
fn parents_first(shards: Vec<Shard>) -> Vec<Shard> {
    let listed: HashSet<String> = shards
        .iter()
        .filter_map(|s| s.shard_id().map(str::to_owned))
        .collect();
    let mut placed: HashSet<String> = HashSet::new();
    let mut pending = shards;
    let mut ordered = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let before = pending.len();
        let (ready, waiting): (Vec<Shard>, Vec<Shard>) = pending.into_iter().partition(|s| {
            s.parent_shard_id()
                .is_none_or(|parent| !listed.contains(parent) || placed.contains(parent))
        });
        placed.extend(ready.iter().filter_map(|s| s.shard_id().map(str::to_owned)));
        ordered.extend(ready);
        pending = waiting;
        if pending.len() == before {
            // A cycle the service would never report: keep the rest as is.
            ordered.append(&mut pending);
        }
    }
    ordered
}

fn service<E>(operation: &'static str, error: E) -> crate::Error
where
    aws_sdk_dynamodbstreams::Error: From<E>,
{
    StreamError::Service {
        operation,
        source: Box::new(aws_sdk_dynamodbstreams::Error::from(error)),
    }
    .into()
}

/// A DynamoDB Streams SDK client for a local endpoint, configured as
/// [`local_sdk_client`](crate::local_sdk_client) configures the DynamoDB
/// one: static credentials and region `us-east-1`.
pub fn local_streams_client(endpoint_url: &str) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config::BehaviorVersion;
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(crate::client::local_region())
        .credentials_provider(crate::client::local_credentials())
        .endpoint_url(endpoint_url)
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}
