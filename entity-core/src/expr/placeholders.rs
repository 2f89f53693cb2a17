//! Placeholder allocation shared by every expression of one request.

use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

/// Hands out `#nN` and `:vN` placeholders for one request, reusing a name's
/// placeholder when it appears twice.
#[derive(Debug, Default, Clone)]
pub struct Placeholders {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

/// The names and values of a rendered request.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Rendered {
    /// `ExpressionAttributeNames` (`None` when empty, as DynamoDB requires).
    pub names: Option<HashMap<String, String>>,
    /// `ExpressionAttributeValues` (`None` when empty).
    pub values: Option<HashMap<String, AttributeValue>>,
}

impl Placeholders {
    /// Starts with the names and values a key condition already uses.
    pub fn with(names: HashMap<String, String>, values: HashMap<String, AttributeValue>) -> Self {
        Self { names, values }
    }

    /// The placeholder for attribute `name`.
    pub fn name(&mut self, name: &str) -> String {
        if let Some((placeholder, _)) = self.names.iter().find(|(_, n)| n.as_str() == name) {
            return placeholder.clone();
        }
        let placeholder = format!("#n{}", self.names.len());
        self.names.insert(placeholder.clone(), name.to_owned());
        placeholder
    }

    /// A fresh placeholder for `value`.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let placeholder = format!(":v{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    /// The maps for the request.
    pub fn finish(self) -> Rendered {
        Rendered {
            names: (!self.names.is_empty()).then_some(self.names),
            values: (!self.values.is_empty()).then_some(self.values),
        }
    }
}
