//! Inputs read whole into memory before polars parses them: compressed files
//! (gzip, zstd: by magic bytes, whatever the extension, on stdin too),
//! standard input, and JSON arrays of objects. Structure errors name the line.
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use std::io::{Cursor, Read};
use std::path::Path;

const GZIP: &[u8] = &[0x1f, 0x8b];
const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// What a file named as parquet holds instead, from its first bytes, in a few
/// words for the error ("" when nothing more can be said): gzip bytes under a
/// .parquet name otherwise read as "not a parquet file" with no hint why.
pub fn not_parquet_hint(path: &Path) -> &'static str {
    let mut head = [0u8; 4];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let head = &head[..n];
    if head.starts_with(GZIP) {
        " (the file is gzip-compressed: decompress it first; parquet compresses inside the file)"
    } else if head.starts_with(ZSTD) {
        " (the file is zstd-compressed: decompress it first; parquet compresses inside the file)"
    } else if n > 0 && !head.starts_with(b"PAR1") && head.iter().all(|b| b.is_ascii()) {
        " (the file starts with text: if it is CSV or NDJSON, name it so or give --format)"
    } else {
        ""
    }
}

/// How a file is compressed, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
}

impl Compression {
    pub fn of(head: &[u8]) -> Option<Compression> {
        if head.starts_with(GZIP) {
            Some(Compression::Gzip)
        } else if head.starts_with(ZSTD) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

/// The bytes, decompressed when they are gzip or zstd.
pub fn decompress(name: &str, bytes: Vec<u8>) -> Result<Vec<u8>> {
    let Some(c) = Compression::of(&bytes) else {
        return Ok(bytes);
    };
    let mut out = Vec::new();
    let read = match c {
        // MultiGzDecoder: `cat a.gz b.gz` is one valid gzip stream
        Compression::Gzip => flate2::read::MultiGzDecoder::new(Cursor::new(&bytes))
            .read_to_end(&mut out)
            .map(|_| ()),
        Compression::Zstd => zstd::stream::read::Decoder::new(Cursor::new(&bytes))
            .and_then(|mut d| d.read_to_end(&mut out))
            .map(|_| ()),
    };
    read.with_context(|| format!("{name}: not a valid {} file", c.name()))?;
    Ok(out)
}

/// What the decoded text is, by its first non-blank character: `{` NDJSON,
/// `[` a JSON array of objects, else CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    Csv,
    Ndjson,
    JsonArray,
}

pub fn text_kind(bytes: &[u8]) -> Text {
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Text::Ndjson,
        Some(b'[') => Text::JsonArray,
        _ => Text::Csv,
    }
}

/// The path's name without a compression suffix: `a.csv.gz` -> `a.csv`.
pub fn inner_name(path: &Path) -> std::path::PathBuf {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if ["gz", "gzip", "zst", "zstd"].contains(&e.to_ascii_lowercase().as_str()) => {
            path.with_extension("")
        }
        _ => path.to_path_buf(),
    }
}

/// Parse decoded bytes as `kind` into a frame of every column.
pub fn parse(name: &str, bytes: Vec<u8>, kind: Text) -> Result<DataFrame> {
    match kind {
        Text::Csv => {
            check_csv_structure(name, &bytes)?;
            let read = |infer: Option<usize>, bytes: Vec<u8>| {
                CsvReadOptions::default()
                    .with_has_header(true)
                    .with_infer_schema_length(infer)
                    .into_reader_with_file_handle(Cursor::new(bytes))
                    .finish()
            };
            match read(Some(10_000), bytes.clone()) {
                Ok(df) => Ok(df),
                // later rows break the inferred types: all text, normalisation counts
                Err(_) => read(Some(0), bytes)
                    .map_err(|e| anyhow::anyhow!("{name}: not a CSV file with a header row: {e}")),
            }
        }
        Text::Ndjson => {
            check_ndjson_lines(name, &bytes)?;
            JsonReader::new(Cursor::new(bytes))
                .with_json_format(JsonFormat::JsonLines)
                .infer_schema_len(std::num::NonZeroUsize::new(10_000))
                .finish()
                .map_err(|e| {
                    anyhow::anyhow!(
                        "{name}: not newline-delimited JSON objects: {}",
                        short(&e.to_string())
                    )
                })
        }
        Text::JsonArray => {
            let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
                anyhow::anyhow!(
                    "{name}: line {}: not a JSON array of objects: {e}",
                    e.line()
                )
            })?;
            let Some(rows) = v.as_array() else {
                bail!("{name}: not a JSON array of objects");
            };
            check_array_records(name, &bytes)?;
            // one object per line, as NDJSON reads it
            let mut nd = Vec::with_capacity(bytes.len());
            for (i, row) in rows.iter().enumerate() {
                if !row.is_object() {
                    bail!(
                        "{name}: element {} of the array is not an object (expected one object per sample)",
                        i + 1
                    );
                }
                serde_json::to_writer(&mut nd, row)?;
                nd.push(b'\n');
            }
            if rows.is_empty() {
                bail!("{name}: the JSON array holds no samples");
            }
            parse(name, nd, Text::Ndjson)
        }
    }
}

/// Each NDJSON line is one object with each key once: a line that is not
/// names its number.
pub fn check_ndjson_lines(name: &str, bytes: &[u8]) -> Result<()> {
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        check_ndjson_line(name, i, line)?;
    }
    Ok(())
}

/// [`check_ndjson_lines`] on a block of whole lines whose first is line
/// `first` (1-based); returns the number of the line after it.
pub fn check_ndjson_block(name: &str, first: usize, bytes: &[u8]) -> Result<usize> {
    let mut i = first - 1;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        check_ndjson_line(name, i, line)?;
        i += 1;
    }
    Ok(i + 1)
}

/// [`check_ndjson_lines`] on a file, read line by line (no second copy in memory).
pub fn check_ndjson_file(name: &str, path: &Path) -> Result<()> {
    let f = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, f);
    let mut line = Vec::new();
    for i in 0.. {
        line.clear();
        let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut line)
            .with_context(|| format!("{name}: cannot read"))?;
        if n == 0 {
            break;
        }
        check_ndjson_line(name, i, &line)?;
    }
    Ok(())
}

/// Line `i` (0-based) of an NDJSON text.
fn check_ndjson_line(name: &str, i: usize, line: &[u8]) -> Result<()> {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Ok(());
    }
    match serde_json::from_slice::<Record>(line) {
        Ok(Record::Object) => {}
        Ok(Record::NotObject) => bail!(
            "{name}: line {}: not a JSON object (expected one object per line)",
            i + 1
        ),
        Ok(Record::DuplicateKey(key)) => {
            bail!("{name}: line {}: {}", i + 1, duplicate_key_message(&key))
        }
        Err(e) => bail!(
            "{name}: line {}: not JSON: {}",
            i + 1,
            json_error_on_line(&e)
        ),
    }
    Ok(())
}

fn duplicate_key_message(key: &str) -> String {
    format!(
        "the key \"{key}\" appears twice in one object (expected each column once; which value is meant?)"
    )
}

/// One JSON record, read only to check its shape: JSON parsers keep one of a
/// duplicate key's values without a word, so a record that repeats a key is
/// refused instead of read with a value picked at random.
enum Record {
    Object,
    NotObject,
    DuplicateKey(String),
}

impl<'de> serde::Deserialize<'de> for Record {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(RecordVisitor)
    }
}

/// A key, borrowed from the line unless it holds escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

struct RecordVisitor;

impl<'de> serde::de::Visitor<'de> for RecordVisitor {
    type Value = Record;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Record, A::Error> {
        let mut keys: Vec<Key<'de>> = Vec::new();
        let mut duplicate = None;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            // a value inside is read the same way (numbers parsed, so an
            // out-of-range one is an error) and its own keys are not the record's
            map.next_value::<Record>()?;
            if duplicate.is_none() {
                // a record holds tens of keys: a scan beats hashing
                if keys.iter().any(|k| k.0 == key.0) {
                    duplicate = Some(key.0.into_owned());
                } else {
                    keys.push(key);
                }
            }
        }
        Ok(duplicate.map_or(Record::Object, Record::DuplicateKey))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Record, A::Error> {
        while seq.next_element::<Record>()?.is_some() {}
        Ok(Record::NotObject)
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<Record, E> {
        Ok(Record::NotObject)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<Record, E> {
        Ok(Record::NotObject)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<Record, E> {
        Ok(Record::NotObject)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<Record, E> {
        Ok(Record::NotObject)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<Record, E> {
        Ok(Record::NotObject)
    }
    fn visit_unit<E>(self) -> std::result::Result<Record, E> {
        Ok(Record::NotObject)
    }
}

/// A JSON array's elements are objects with each key once (the array's own check).
fn check_array_records(name: &str, bytes: &[u8]) -> Result<()> {
    let Ok(records) = serde_json::from_slice::<Vec<Record>>(bytes) else {
        return Ok(()); // not an array of values: the full parse says why
    };
    for (i, r) in records.iter().enumerate() {
        if let Record::DuplicateKey(key) = r {
            bail!(
                "{name}: element {} of the array: {}",
                i + 1,
                duplicate_key_message(key)
            );
        }
    }
    Ok(())
}

/// serde's message for one line parsed alone says "at line 1 column C": the
/// file's line is named already, so only the column stays.
fn json_error_on_line(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&at) {
        Some(what) if e.line() == 1 => format!("{what} at column {}", e.column()),
        _ => text,
    }
}

/// Every CSV row has as many fields as the header: a row with too few or too
/// many is refused naming its line (a silent short row would be a sample with
/// made-up nulls; a long one, shifted columns).
pub fn check_csv_structure(name: &str, bytes: &[u8]) -> Result<()> {
    let mut shape = CsvShape::new(name, b',');
    shape.feed(bytes)?;
    shape.end()
}

/// The same check on a file, read in blocks (no second copy in memory).
pub fn check_csv_file(name: &str, path: &Path) -> Result<()> {
    let mut f = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let mut shape = CsvShape::new(name, separator_of(path));
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("{name}: cannot read"))?;
        if n == 0 {
            break;
        }
        shape.feed(&buf[..n])?;
    }
    shape.end()
}

/// The field separator: tab for `.tsv`, else comma.
pub fn separator_of(path: &Path) -> u8 {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("tsv") => b'\t',
        _ => b',',
    }
}

/// Field counts per row, quote-aware, fed block by block.
pub(crate) struct CsvShape<'a> {
    name: &'a str,
    separator: u8,
    expected: Option<usize>,
    fields: usize,
    in_quotes: bool,
    line: usize,
    start_line: usize,
    empty: bool,
    /// the last byte was a carriage return outside quotes
    cr: bool,
}

impl<'a> CsvShape<'a> {
    pub(crate) fn new(name: &'a str, separator: u8) -> Self {
        CsvShape {
            name,
            separator,
            expected: None,
            fields: 1,
            in_quotes: false,
            line: 1,
            start_line: 1,
            empty: true,
            cr: false,
        }
    }

    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<()> {
        // Outside quotes, with no quote in the block and past the header
        // line (where a bare carriage return matters), a row is a run up to a
        // line feed: count separators per run, not a branch per byte
        // (a third of the CPU of streaming a 3.5 GB CSV went here).
        if !self.in_quotes && self.line > 1 && memchr::memchr(b'"', bytes).is_none() {
            return self.feed_unquoted(bytes);
        }
        self.feed_bytes(bytes)
    }

    /// [`CsvShape::feed`] a byte at a time: quotes, and the header line.
    fn feed_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        for &b in bytes {
            // a carriage return before the first line feed that is not
            // followed by one ends the header line: classic Mac (CR-only)
            // line endings, which would read as one header and no rows
            if std::mem::take(&mut self.cr) && b != b'\n' && self.line == 1 {
                bail!(
                    "{}: line 1 ends in a bare carriage return (classic Mac line endings); expected LF or CRLF line endings (convert with: tr '\\r' '\\n')",
                    self.name
                );
            }
            match b {
                b'"' => {
                    self.in_quotes = !self.in_quotes;
                    self.empty = false;
                }
                b if b == self.separator && !self.in_quotes => {
                    self.fields += 1;
                    self.empty = false;
                }
                b'\n' => {
                    self.line += 1;
                    if !self.in_quotes {
                        self.row_done()?;
                        self.start_line = self.line;
                    }
                }
                b'\r' => self.cr = !self.in_quotes,
                _ => self.empty = false,
            }
        }
        Ok(())
    }

    /// [`CsvShape::feed`] for bytes without a quote, outside quotes, past line 1.
    fn feed_unquoted(&mut self, bytes: &[u8]) -> Result<()> {
        let separator = self.separator;
        // a carriage return only ends a line in the header's check: elsewhere
        // it is neither a field nor content (a CRLF row's "\r" is empty)
        let run = |s: &mut Self, part: &[u8]| {
            s.fields += memchr::memchr_iter(separator, part).count();
            s.empty &= part.iter().all(|&b| b == b'\r');
        };
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', bytes) {
            run(self, &bytes[start..newline]);
            self.line += 1;
            self.row_done()?;
            self.start_line = self.line;
            start = newline + 1;
        }
        run(self, &bytes[start..]);
        self.cr = bytes.last() == Some(&b'\r');
        Ok(())
    }

    fn row_done(&mut self) -> Result<()> {
        let (fields, empty) = (self.fields, self.empty);
        self.fields = 1;
        self.empty = true;
        if empty {
            return Ok(());
        }
        match self.expected {
            None => self.expected = Some(fields),
            Some(n) if n != fields => bail!(
                "{}: line {}: {fields} fields, the header has {n} (a row with too {} fields)",
                self.name,
                self.start_line,
                if fields < n { "few" } else { "many" }
            ),
            Some(_) => {}
        }
        Ok(())
    }

    pub(crate) fn end(mut self) -> Result<()> {
        self.row_done()
    }
}

/// A polars message cut to a line a person reads (a 200 MB header is not echoed).
pub fn short(text: &str) -> String {
    use crate::text::{Mark, shorten_with};
    shorten_with(&text.replace('\n', " "), 240, Mark::Count)
}

#[cfg(test)]
mod tests {
    use super::CsvShape;

    /// The outcome of feeding `text` in pieces of `piece` bytes: Ok, or the error's text.
    fn shape_of(text: &[u8], piece: usize, bytewise: bool) -> String {
        let mut shape = CsvShape::new("t.csv", b',');
        let fed = text.chunks(piece).try_for_each(|part| {
            if bytewise {
                shape.feed_bytes(part)
            } else {
                shape.feed(part)
            }
        });
        match fed.and_then(|_| shape.end()) {
            Ok(()) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_unquoted_fast_path_decides_as_the_byte_loop() {
        let cases: &[&[u8]] = &[
            b"a,b,c\n1,2,3\n4,5,6\n",
            b"a,b,c\n1,2,3\n4,5\n7,8,9\n",
            b"a,b,c\n1,2,3\n4,5,6,7\n",
            b"a,b,c\r\n1,2,3\r\n\r\n4,5,6\r\n",
            b"a,b,c\r\n1,2,3\r\n4,5\r\n",
            b"a,b,c\n1,2,3\n\n\n4,5,6",
            b"a,b,c\n1,2,3\n4,5",
            b"a,b,c\n1,\"x,\ny\",3\n4,5,6\n7,8\n",
            b"a,b,c\n1,\"x\",3\n4,5,6,7\n",
            b"a,b\rc\n1,2\n",
            b"a,b\n,\n,,\n",
            b"a\n\n\n",
        ];
        for text in cases {
            for piece in [1, 2, 3, 5, 7, 64] {
                assert_eq!(
                    shape_of(text, piece, false),
                    shape_of(text, piece, true),
                    "{:?} in pieces of {piece}",
                    String::from_utf8_lossy(text)
                );
            }
        }
        // and the decisions themselves
        assert_eq!(shape_of(cases[0], 4, false), "ok");
        assert_eq!(
            shape_of(cases[1], 4, false),
            "t.csv: line 3: 2 fields, the header has 3 (a row with too few fields)"
        );
        assert_eq!(
            shape_of(cases[4], 3, false),
            "t.csv: line 3: 2 fields, the header has 3 (a row with too few fields)"
        );
    }
}
