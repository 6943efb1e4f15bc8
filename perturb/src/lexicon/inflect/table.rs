//! How lemminflect's tables are held in memory: the interned [`Table`] of records and slots, and
//! the [`Inflections`] value that owns the inflection and lemma tables.

use std::collections::BTreeMap;

/// A string in a [`Table`]'s arena.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    len: u32,
}

/// One spelling of one slot (a tag or a upos) of one word.
#[derive(Clone, Copy, Debug)]
pub(super) struct Record {
    pub(super) slot: u8,
    spelling: Span,
}

/// A word and its run of records.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: Span,
    first: u32,
    count: u32,
}

/// A word → slot → spellings map in compact form.
#[derive(Debug, Default)]
pub(super) struct Table {
    text: String,
    entries: Vec<Entry>,
    records: Vec<Record>,
}

/// The slots of one word while loading, in the order first seen; a later value replaces an
/// earlier one for the same slot (Python's `dict.update`).
pub(super) type Slots = Vec<(u8, Vec<String>)>;

pub(super) fn set_slot(slots: &mut Slots, slot: u8, spellings: Vec<String>) {
    match slots.iter_mut().find(|(s, _)| *s == slot) {
        Some(existing) => existing.1 = spellings,
        None => slots.push((slot, spellings)),
    }
}

impl Table {
    pub(super) fn build(words: BTreeMap<String, Slots>) -> Result<Table, String> {
        let mut table = Table::default();
        for (word, slots) in words {
            let key = table.push_str(&word)?;
            let first = u32::try_from(table.records.len()).map_err(|_| "table too large")?;
            for (slot, spellings) in slots {
                for spelling in spellings {
                    let spelling = if spelling == word {
                        key
                    } else {
                        table.push_str(&spelling)?
                    };
                    table.records.push(Record { slot, spelling });
                }
            }
            let count = u32::try_from(table.records.len()).map_err(|_| "table too large")? - first;
            table.entries.push(Entry { key, first, count });
        }
        table.text.shrink_to_fit();
        table.entries.shrink_to_fit();
        table.records.shrink_to_fit();
        Ok(table)
    }

    fn push_str(&mut self, s: &str) -> Result<Span, String> {
        let start = u32::try_from(self.text.len()).map_err(|_| "table too large")?;
        let len = u32::try_from(s.len()).map_err(|_| "string too long")?;
        self.text.push_str(s);
        Ok(Span { start, len })
    }

    fn str(&self, span: Span) -> &str {
        let start = span.start as usize;
        self.text
            .get(start..start + span.len as usize)
            .unwrap_or("")
    }

    pub(super) fn entry(&self, word: &str) -> Option<&[Record]> {
        let i = self
            .entries
            .binary_search_by(|e| self.str(e.key).cmp(word))
            .ok()?;
        let e = self.entries.get(i)?;
        self.records
            .get(e.first as usize..(e.first + e.count) as usize)
    }

    /// The spellings of `slot` in `records`, in table order.
    pub(super) fn spellings<'a>(&'a self, records: &'a [Record], slot: u8) -> Vec<&'a str> {
        records
            .iter()
            .filter(|r| r.slot == slot)
            .map(|r| self.str(r.spelling))
            .collect()
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.records.capacity() * std::mem::size_of::<Record>()
    }
}

/// lemminflect's inflection and lemma tables, loaded once and shared (`Send + Sync`).
#[derive(Debug)]
pub struct Inflections {
    pub(super) infl: Table,
    pub(super) lemmas: Table,
}
