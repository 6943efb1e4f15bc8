//! Reading the msgpack files of a spaCy pipeline directory (srsly/thinc serialisation).
//!
//! Component weights are thinc `Model.to_bytes()` maps (`nodes`, `attrs`, `params`, `shims`)
//! whose arrays use msgpack-numpy's encoding (`{nd, type, kind, shape, data}`); tokenizer rules,
//! moves and lookup tables are plain msgpack maps. srsly writes map keys as either msgpack `str`
//! or `bin`, so every lookup here accepts both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use rmpv::Value;

use super::LoadError;

/// Decodes one msgpack document.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<Value, LoadError> {
    let mut reader = bytes;
    let value = rmpv::decode::read_value(&mut reader)
        .map_err(|e| LoadError::new(path, format!("not a msgpack document: {e}")))?;
    Ok(value)
}

/// Reads and decodes a msgpack file.
pub fn read_file(path: &Path) -> Result<Value, LoadError> {
    let bytes = std::fs::read(path).map_err(|e| LoadError::new(path, e.to_string()))?;
    decode(path, &bytes)
}

/// Looks `key` up in a msgpack map whose keys are `str` or `bin`.
pub fn get<'a>(map: &'a Value, key: &str) -> Option<&'a Value> {
    map.as_map()?
        .iter()
        .find_map(|(k, v)| (key_str(k) == Some(key)).then_some(v))
}

/// A map key or string value as text (msgpack `str`, or `bin` holding UTF-8).
pub fn key_str(value: &Value) -> Option<&str> {
    match value {
        Value::String(s) => s.as_str(),
        Value::Binary(b) => std::str::from_utf8(b).ok(),
        _ => None,
    }
}

/// A dense `float32` array decoded from msgpack-numpy's encoding (C order).
#[derive(Clone, Debug, PartialEq)]
pub struct NdArray {
    /// Dimensions, outermost first.
    pub shape: Vec<usize>,
    /// Elements in row-major order.
    pub data: Vec<f32>,
}

impl NdArray {
    /// Decodes a msgpack-numpy array, which must be little-endian `float32`.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let dtype = get(value, "type")
            .and_then(key_str)
            .ok_or("array without `type`")?;
        if dtype != "<f4" {
            return Err(format!(
                "array of dtype {dtype:?}; only little-endian float32 (<f4) is supported"
            ));
        }
        let shape = get(value, "shape")
            .and_then(Value::as_array)
            .ok_or("array without `shape`")?
            .iter()
            .map(|d| {
                d.as_u64()
                    .map(|d| d as usize)
                    .ok_or("non-integer dimension")
            })
            .collect::<Result<Vec<_>, _>>()?;
        let data = match get(value, "data") {
            Some(Value::Binary(b)) => b,
            _ => return Err("array without binary `data`".into()),
        };
        let len: usize = shape.iter().product();
        if data.len() != len * 4 {
            return Err(format!(
                "array data holds {} bytes, shape {shape:?} needs {}",
                data.len(),
                len * 4
            ));
        }
        let data = data
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Self { shape, data })
    }
}

/// One node of a serialised thinc model: its name, dimensions, references, attributes and
/// parameters.
#[derive(Clone, Debug)]
pub struct ThincNode {
    /// Position in the model's `walk()` order.
    pub index: usize,
    /// Layer name, e.g. `maxout`, `hashembed`, `precomputable_affine`.
    pub name: String,
    /// Named dimensions (`nO`, `nI`, `nP`, …); `None` when unset.
    pub dims: BTreeMap<String, Option<i64>>,
    /// Named references to other nodes, by index.
    pub refs: BTreeMap<String, usize>,
    /// Attributes, each decoded from its own msgpack payload.
    pub attrs: BTreeMap<String, Value>,
    /// Parameters by name (`W`, `b`, `E`, `G`, `pad`).
    pub params: BTreeMap<String, NdArray>,
}

impl ThincNode {
    /// The parameter `name`, or an error naming the layer.
    pub fn param(&self, name: &str) -> Result<&NdArray, String> {
        self.params.get(name).ok_or_else(|| {
            format!(
                "layer #{} `{}` has no parameter `{name}`",
                self.index, self.name
            )
        })
    }

    /// The integer attribute `name`.
    pub fn attr_int(&self, name: &str) -> Option<i64> {
        self.attrs.get(name).and_then(Value::as_i64)
    }

    /// The dimension `name` when set.
    pub fn dim(&self, name: &str) -> Option<usize> {
        self.dims.get(name).copied().flatten().map(|d| d as usize)
    }
}

/// A serialised thinc model (the `model` file of a pipeline component).
#[derive(Clone, Debug)]
pub struct ThincModel {
    /// Where it was read from, for error messages.
    pub path: PathBuf,
    /// Nodes in `walk()` order.
    pub nodes: Vec<ThincNode>,
}

impl ThincModel {
    /// Reads a component's `model` file.
    pub fn read(path: &Path) -> Result<Self, LoadError> {
        let value = read_file(path)?;
        Self::from_value(path, &value).map_err(|m| LoadError::new(path, m))
    }

    fn from_value(path: &Path, value: &Value) -> Result<Self, String> {
        let list = |key: &str| {
            get(value, key)
                .and_then(Value::as_array)
                .ok_or_else(|| format!("not a thinc model: no `{key}` list"))
        };
        let (nodes, attrs, params) = (list("nodes")?, list("attrs")?, list("params")?);
        if nodes.len() != attrs.len() || nodes.len() != params.len() {
            return Err("not a thinc model: `nodes`, `attrs` and `params` differ in length".into());
        }
        let mut out = Vec::with_capacity(nodes.len());
        for (i, ((node, attr), param)) in nodes.iter().zip(attrs).zip(params).enumerate() {
            let name = get(node, "name")
                .and_then(key_str)
                .ok_or(format!("node {i} has no name"))?
                .to_string();
            let mut dims = BTreeMap::new();
            if let Some(map) = get(node, "dims").and_then(Value::as_map) {
                for (k, v) in map {
                    dims.insert(key_str(k).unwrap_or_default().to_string(), v.as_i64());
                }
            }
            let mut refs = BTreeMap::new();
            if let Some(map) = get(node, "refs").and_then(Value::as_map) {
                for (k, v) in map {
                    if let Some(v) = v.as_u64() {
                        refs.insert(key_str(k).unwrap_or_default().to_string(), v as usize);
                    }
                }
            }
            let mut attrs = BTreeMap::new();
            if let Some(map) = attr.as_map() {
                for (k, v) in map {
                    let key = key_str(k).unwrap_or_default().to_string();
                    let decoded = match v {
                        Value::Binary(b) => decode(path, b)
                            .map_err(|e| format!("node {i} attr `{key}`: {}", e.message))?,
                        other => other.clone(),
                    };
                    attrs.insert(key, decoded);
                }
            }
            let mut arrays = BTreeMap::new();
            if let Some(map) = param.as_map() {
                for (k, v) in map {
                    let key = key_str(k).unwrap_or_default().to_string();
                    if v.is_nil() {
                        continue;
                    }
                    let array = NdArray::from_value(v)
                        .map_err(|e| format!("node {i} `{name}` param `{key}`: {e}"))?;
                    arrays.insert(key, array);
                }
            }
            out.push(ThincNode {
                index: i,
                name,
                dims,
                refs,
                attrs,
                params: arrays,
            });
        }
        Ok(Self {
            path: path.to_path_buf(),
            nodes: out,
        })
    }

    /// Nodes called exactly `name`, in walk order.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a ThincNode> + 'a {
        self.nodes.iter().filter(move |n| n.name == name)
    }

    /// An error about this model file.
    pub fn error(&self, message: impl Into<String>) -> LoadError {
        LoadError::new(&self.path, message)
    }
}
