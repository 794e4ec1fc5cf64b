//! The snapshot the readers' front (`readers.js`) takes of an adapter's input, read as a
//! [`Source`]: the fields a [`Plan`] names, per item, with their kinds, truthiness, tags,
//! dates and list lengths in typed arrays, and the values a row may hold in arrays of
//! their own. A handle is a place in the snapshot; whatever the snapshot does not hold
//! exactly is a [`Bail`], and the call goes to the plain entry point.

use crate::reading::source::{Key, Source, ValueType};
use crate::views::webui::UnknownMessageType;

use super::super::raw::js::{Js, JsError, Value};

/// What a field of a plan is read for, besides its kind and truthiness.
pub(super) const TAG: u8 = 1;
pub(super) const TIME: u8 = 2;
pub(super) const LIST: u8 = 4;
/// The value is kept, for a row to hold.
pub(super) const KEEP: u8 = 8;

/// One field the front reads per item: `key` of the item (`parent: None`) or of an
/// earlier field.
pub(super) struct Field {
    pub(super) parent: Option<usize>,
    pub(super) key: Key,
    pub(super) read: u8,
    /// Read only when this TAG field is one of these tags (the rule reads it only then).
    pub(super) when: Option<(usize, &'static [&'static [u8]])>,
}

/// What the front reads for one adapter.
pub(super) struct Plan {
    pub(super) fields: &'static [Field],
    /// The key read of each element of the LIST field.
    pub(super) list_key: Key,
    /// Every string the rule compares with.
    pub(super) tags: &'static [&'static [u8]],
}

pub(super) const fn field(parent: Option<usize>, key: Key, read: u8) -> Field {
    Field {
        parent,
        key,
        read,
        when: None,
    }
}

/// [`field`], read only when the TAG field `tag` is one of `tags`.
pub(super) const fn field_when(
    parent: Option<usize>,
    key: Key,
    read: u8,
    tag: usize,
    tags: &'static [&'static [u8]],
) -> Field {
    Field {
        parent,
        key,
        read,
        when: Some((tag, tags)),
    }
}

/// The kind codes of `readers.js`: a [`ValueType`], or a field that was not read.
const NOT_READ: u8 = 15;
const TRUTHY: u8 = 16;
const KINDS: [ValueType; 10] = [
    ValueType::Undefined,
    ValueType::Null,
    ValueType::Boolean,
    ValueType::Number,
    ValueType::BigInt,
    ValueType::String,
    ValueType::Symbol,
    ValueType::Function,
    ValueType::Array,
    ValueType::Object,
];

/// The snapshot cannot answer as the caller's values would: the plain entry point does.
#[derive(Debug)]
pub enum Bail {
    Bail,
    Js(JsError),
}

impl From<crate::reading::source::Invalid> for Bail {
    fn from(_: crate::reading::source::Invalid) -> Self {
        Bail::Bail
    }
}

impl<V> From<UnknownMessageType<V>> for Bail {
    fn from(_: UnknownMessageType<V>) -> Self {
        Bail::Bail
    }
}

impl From<JsError> for Bail {
    fn from(e: JsError) -> Self {
        Bail::Js(e)
    }
}

/// The array of items itself.
pub(super) const ROOT: u32 = u32::MAX;
/// The bit of a handle to an element of a LIST field.
const ELEMENT: u32 = 1 << 31;
/// A handle holds its item's index above these bits and its place in the item (0 the
/// item, 1 + the field's index) in them: no plan has 15 fields, and no division is made
/// per read.
const PLACE_BITS: u32 = 4;
const PLACE: u32 = (1 << PLACE_BITS) - 1;
/// The most items a snapshot is taken of (handles are 32 bits).
pub(super) const MAX_ITEMS: usize = 1 << (31 - PLACE_BITS);
pub(super) const PLACES: usize = PLACE as usize + 1;
/// More than there are [`Key`]s.
const KEYS: usize = 64;

/// The children table of [`Snapshot`] for `plan`.
pub(super) fn children(plan: &Plan) -> [u8; PLACES * KEYS] {
    let mut children = [0; PLACES * KEYS];
    for (index, field) in plan.fields.iter().enumerate() {
        let parent = field.parent.map_or(0, |parent| parent + 1);
        if (field.key as usize) < KEYS {
            children[parent * KEYS + field.key as usize] = index as u8 + 1;
        }
    }
    children
}

/// A snapshot as the front took it. Per item the front wrote `width` slots (the item,
/// then its fields in the plan's order) into the typed arrays, and after them two slots
/// per element of a LIST field (the element, then its `list_key` field) into the element
/// arrays. A value is a handle: `item << PLACE_BITS | place`, or `ELEMENT | slot`.
pub(super) struct Snapshot<'a, 's> {
    pub(super) js: &'a Js<'s>,
    pub(super) plan: &'static Plan,
    /// The place of `key` read from the value at `place`, at `place * KEYS + key` (0: the
    /// plan reads no such field).
    pub(super) children: [u8; PLACES * KEYS],
    pub(super) count: usize,
    pub(super) width: usize,
    pub(super) kinds: &'a [u8],
    pub(super) tags: &'a [u8],
    pub(super) numbers: &'a [f64],
    pub(super) starts: &'a [i32],
    pub(super) element_kinds: &'a [u8],
    /// One array per field, holding the values of KEEP fields.
    pub(super) columns: Value,
    pub(super) elements: Value,
}

impl Snapshot<'_, '_> {
    /// The place of an item's handle in the typed arrays.
    fn index(&self, handle: u32) -> usize {
        (handle >> PLACE_BITS) as usize * self.width + (handle & PLACE) as usize
    }

    fn kind(&self, handle: u32) -> Result<u8, Bail> {
        let kind = match handle & ELEMENT {
            0 => self.kinds.get(self.index(handle)),
            _ => self.element_kinds.get((handle & !ELEMENT) as usize),
        };
        match kind {
            Some(&kind) if kind & 15 != NOT_READ => Ok(kind),
            _ => Err(Bail::Bail),
        }
    }

    /// The plan's field `handle` is, when it is one (not an item or an element).
    fn field(&self, handle: u32) -> Option<&'static Field> {
        if handle & ELEMENT != 0 {
            return None;
        }
        let index = ((handle & PLACE) as usize).checked_sub(1)?;
        self.plan.fields.get(index)
    }

    /// Whether the front kept the value of `handle`.
    pub(super) fn kept(&self, handle: u32) -> bool {
        handle & ELEMENT != 0 || self.field(handle).is_some_and(|field| field.read & KEEP != 0)
    }

    /// The caller's value of `handle`, read through N-API (for the rare rule that needs a
    /// string whole).
    fn value(&self, handle: u32) -> Result<Value, Bail> {
        if !self.kept(handle) {
            return Err(Bail::Bail);
        }
        Ok(match handle & ELEMENT {
            0 => {
                let column = self.js.element(self.columns, (handle & PLACE) as usize - 1)?;
                self.js.element(column, (handle >> PLACE_BITS) as usize)?
            }
            _ => self.js.element(self.elements, (handle & !ELEMENT) as usize)?,
        })
    }
}

impl Source for Snapshot<'_, '_> {
    type Value = u32;
    type Error = Bail;

    fn get(&self, object: u32, key: Key) -> Result<u32, Bail> {
        if object == ROOT {
            return Err(Bail::Bail);
        }
        if object & ELEMENT != 0 {
            // An element's own field.
            return match object & 1 == 0 && key == self.plan.list_key {
                true => Ok(object + 1),
                false => Err(Bail::Bail),
            };
        }
        if key as usize >= KEYS {
            return Err(Bail::Bail);
        }
        match self.children[(object & PLACE) as usize * KEYS + key as usize] {
            0 => Err(Bail::Bail),
            place => Ok((object & !PLACE) | place as u32),
        }
    }

    fn has(&self, _: u32, _: Key) -> Result<bool, Bail> {
        Err(Bail::Bail)
    }

    fn value_type(&self, value: u32) -> Result<ValueType, Bail> {
        if value == ROOT {
            return Ok(ValueType::Array);
        }
        let kind = KINDS.get((self.kind(value)? & 15) as usize).copied();
        // The front's `Array.isArray` is also true for a Proxy of an array, which N-API's
        // typeof calls an object: only the plain entry point tells them apart. A LIST
        // field's kind only tells it from `undefined` and `null`; its length is read as
        // `Array.isArray` sees it on both paths.
        let listed = self.field(value).is_some_and(|field| field.read & LIST != 0);
        match kind {
            Some(ValueType::Array) if !listed => Err(Bail::Bail),
            Some(kind) => Ok(kind),
            None => Err(Bail::Bail),
        }
    }

    fn tag<'b>(&self, value: u32, _: &'b mut [u8; 32]) -> Result<Option<&'b [u8]>, Bail> {
        if self.kind(value)? & 15 != ValueType::String as u8 {
            return Ok(None);
        }
        match self.field(value) {
            Some(field) if field.read & TAG != 0 => match self.tags.get(self.index(value)) {
                Some(0) => Ok(Some(&[])),
                Some(&code) => Ok(self.plan.tags.get(code as usize - 1).copied()),
                None => Err(Bail::Bail),
            },
            _ => Err(Bail::Bail),
        }
    }

    fn units(&self, value: u32) -> Result<Vec<u16>, Bail> {
        let mut units = Vec::new();
        self.js.utf16_into(self.value(value)?, &mut units)?;
        Ok(units)
    }

    fn array_len(&self, value: u32) -> Result<Option<usize>, Bail> {
        if value == ROOT {
            return Ok(Some(self.count));
        }
        if self.kind(value)? & 15 != ValueType::Array as u8 {
            return Ok(None);
        }
        match (self.field(value), self.numbers.get(self.index(value))) {
            (Some(field), Some(&length)) if field.read & LIST != 0 && length.is_finite() => {
                Ok(Some(length as usize))
            }
            _ => Err(Bail::Bail),
        }
    }

    fn element(&self, array: u32, index: usize) -> Result<u32, Bail> {
        if array == ROOT {
            return match index < self.count {
                true => Ok((index as u32) << PLACE_BITS),
                false => Err(Bail::Bail),
            };
        }
        let length = self.array_len(array)?.ok_or(Bail::Bail)?;
        let start = *self.starts.get(self.index(array)).ok_or(Bail::Bail)?;
        let slot = 2 * (start as usize + index);
        match index < length && slot < ELEMENT as usize {
            true => Ok(ELEMENT | slot as u32),
            false => Err(Bail::Bail),
        }
    }

    fn truthy(&self, value: u32) -> Result<bool, Bail> {
        if value == ROOT {
            return Ok(true);
        }
        Ok(self.kind(value)? & TRUTHY != 0)
    }

    fn number(&self, value: u32) -> Result<f64, Bail> {
        Ok(self.js.number(self.value(value)?)?)
    }

    fn time(&self, value: u32) -> Result<f64, Bail> {
        let kind = self.kind(value)? & 15;
        match (self.field(value), self.numbers.get(self.index(value))) {
            (Some(field), Some(&time))
                if field.read & TIME != 0
                    && (kind == ValueType::String as u8 || kind == ValueType::Number as u8) =>
            {
                Ok(time)
            }
            _ => Err(Bail::Bail),
        }
    }
}
