//! CSV and NDJSON above the memory bound, streamed: the text (plain, gzip or
//! zstd) is read in blocks cut on record edges, each block is parsed by
//! polars with the schema the in-memory reader infers (its first 10,000
//! rows), projected to the columns the audit maps, and appended as a row
//! group to a temporary parquet file, the spool. The spool is then audited by
//! the parquet stream's two passes, so every decision that needs the whole
//! input (units, never measured, strays) is taken once for the whole input,
//! by the same code. Memory: one block and its frame, whatever the rows.
use super::{Input, decode};
use crate::samples::{Resolved, UserMap, resolve_columns};
use anyhow::{Context, Result, anyhow};
use polars::prelude::*;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bytes of text parsed at once: a block and its frame stay near 100 MB.
const BLOCK_BYTES: usize = 32 << 20;

/// The block size: `text_block_bytes` (GPUAUDIT_TEXT_BLOCK_BYTES, read in
/// cmd/) sets a smaller one for tests (block edges inside a GPU's run).
fn block_bytes(opts: &super::ReadOptions) -> usize {
    opts.text_block_bytes.unwrap_or(BLOCK_BYTES)
}

/// While text spools, blocks' buffers are reused from the heap instead of
/// mapped fresh: glibc maps every allocation over 32 MiB (a block, its copy,
/// polars' parse buffers) and unmaps it when freed, so each block was faulted
/// in again, zeroed (2.8M page faults, 6 s of system time, on a 3.5 GB CSV).
/// Chunks up to 64 MiB come from the heap and up to 256 MiB of it freed is
/// kept for the next block; on drop, the bounds glibc's own adaptive rule
/// reaches (32 MiB, 64 MiB), so the audit after it keeps its memory profile.
struct HeapForBlocks;

impl HeapForBlocks {
    fn enter() -> Self {
        set_heap_bounds(64 << 20, 256 << 20);
        HeapForBlocks
    }
}

impl Drop for HeapForBlocks {
    fn drop(&mut self) {
        set_heap_bounds(32 << 20, 64 << 20);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_heap_bounds(mmap_above: i32, trim_above: i32) {
    // SAFETY: mallopt only sets allocator parameters; any value is valid
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, mmap_above);
        libc::mallopt(libc::M_TRIM_THRESHOLD, trim_above);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_heap_bounds(_: i32, _: i32) {}

/// Rows the schema is inferred from, as the in-memory reader infers it.
const INFER_ROWS: usize = 10_000;

/// A file in the temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
}

impl TempFile {
    /// A new, empty file `gpuaudit-PID-N.EXT` in the temporary directory.
    pub fn create(ext: &str) -> Result<(Self, std::fs::File)> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("gpuaudit-{}-{n}.{ext}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("cannot create the temporary file {}", path.display()))?;
        Ok((TempFile { path }, file))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Standard input as read: whole in memory when it fits the bound, else
/// copied to a temporary file (a pipe cannot be read twice; the passes can).
pub enum Stdin {
    Bytes(Vec<u8>),
    Spilled(TempFile),
}

/// Reads standard input: up to `bound` bytes in memory, the rest (when there
/// is more) with them to a temporary file, in blocks.
pub fn take_stdin(bound: u64) -> Result<Stdin> {
    let mut head = Vec::new();
    let mut stdin = std::io::stdin().lock();
    (&mut stdin)
        .take(bound.saturating_add(1))
        .read_to_end(&mut head)
        .context("-: cannot read standard input")?;
    if head.len() as u64 <= bound {
        return Ok(Stdin::Bytes(head));
    }
    let (spill, file) = TempFile::create("stdin")?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let copy = out
        .write_all(&head)
        .and_then(|_| std::io::copy(&mut stdin, &mut out).map(|_| ()))
        .and_then(|_| out.flush());
    copy.with_context(|| {
        format!(
            "-: cannot copy standard input to {} (set TMPDIR to a directory with room)",
            spill.path().display()
        )
    })?;
    Ok(Stdin::Spilled(spill))
}

/// What a text input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    Csv { separator: u8 },
    Ndjson,
}

/// The text of a file, decompressed when it is gzip or zstd.
fn open_text(name: &str, path: &Path) -> Result<Box<dyn Read>> {
    let head = super::files::read_head(path, 4)?;
    let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let buffered = BufReader::with_capacity(1 << 20, file);
    Ok(match decode::Compression::of(&head) {
        Some(decode::Compression::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(buffered)),
        Some(decode::Compression::Zstd) => Box::new(
            zstd::stream::read::Decoder::with_buffer(buffered)
                .with_context(|| format!("{name}: not a valid zstd file"))?,
        ),
        None => Box::new(buffered),
    })
}

/// Text read in blocks that end on a record's end (a newline outside quotes).
struct Blocks {
    reader: Box<dyn Read>,
    name: String,
    csv: bool,
    carry: Vec<u8>,
    eof: bool,
    /// the file's compression, to name it when its bytes do not decode
    compression: Option<decode::Compression>,
}

impl Blocks {
    /// The next block of at least `min_bytes` (or the rest) and `min_records`
    /// newlines (CSV: outside quotes); None at the end.
    fn next(&mut self, min_bytes: usize, min_records: usize) -> Result<Option<Vec<u8>>> {
        let mut buf = std::mem::take(&mut self.carry);
        loop {
            if buf.len() >= min_bytes || self.eof {
                // the last record edge within min_bytes, else the first past it
                let within = &buf[..buf.len().min(min_bytes)];
                let cut = match last_record_end(within, self.csv) {
                    (Some(c), n) if n >= min_records => Some(c),
                    _ => match last_record_end(&buf, self.csv) {
                        (Some(c), n) if n >= min_records => Some(c),
                        _ => None,
                    },
                };
                match cut {
                    Some(c) if c < buf.len() => {
                        self.carry = buf.split_off(c);
                        return Ok(Some(buf));
                    }
                    _ if self.eof => return Ok((!buf.is_empty()).then_some(buf)),
                    _ => {}
                }
            }
            let want = min_bytes.max(buf.len()).max(1 << 16);
            let before = buf.len();
            // room for the whole read up front: no doubling copies of a 32 MiB buffer
            buf.reserve(want);
            (&mut self.reader)
                .take(want as u64)
                .read_to_end(&mut buf)
                .with_context(|| match self.compression {
                    Some(c) => format!("{}: not a valid {} file", self.name, c.name()),
                    None => format!("{}: cannot read", self.name),
                })?;
            self.eof = buf.len() == before;
        }
    }
}

/// Where the `n`th record ends (just past its newline), else the end.
fn nth_record_end(bytes: &[u8], csv: bool, n: usize) -> usize {
    let mut in_quotes = false;
    let mut records = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' if csv => in_quotes = !in_quotes,
            b'\n' if !in_quotes => {
                records += 1;
                if records == n {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    bytes.len()
}

/// Where the last complete record ends (just past its newline) and how many
/// records end before it; quotes hide newlines in CSV.
fn last_record_end(bytes: &[u8], csv: bool) -> (Option<usize>, usize) {
    // without a quote every line feed ends a record: a SIMD search, not a byte loop
    if !csv || memchr::memchr(b'"', bytes).is_none() {
        let last = memchr::memrchr(b'\n', bytes).map(|i| i + 1);
        return (last, memchr::memchr_iter(b'\n', bytes).count());
    }
    let mut in_quotes = false;
    let (mut last, mut records) = (None, 0usize);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' if csv => in_quotes = !in_quotes,
            b'\n' if !in_quotes => {
                last = Some(i + 1);
                records += 1;
            }
            _ => {}
        }
    }
    (last, records)
}

/// The spool of one text input and what it says of the input.
pub struct Spooled {
    pub file: TempFile,
    /// data rows read
    pub rows: u64,
}

/// The columns the audit maps from a header, the time and GPU checked.
fn mapped_columns(
    name: &str,
    columns: &[String],
    maps: &[UserMap],
) -> Result<(Vec<Resolved>, Vec<Resolved>)> {
    let resolved = resolve_columns(columns, maps);
    super::files::require_time_and_gpu(name, columns, &resolved)?;
    let twins = crate::samples::twins(columns, &resolved);
    Ok((resolved, twins))
}

/// Parse one block (CSV: `header` in front) with `schema`, or infer it.
fn parse_block(
    kind: TextKind,
    header: &[u8],
    block: &[u8],
    schema: Option<&SchemaRef>,
    n_rows: Option<usize>,
) -> PolarsResult<DataFrame> {
    let mut bytes = Vec::with_capacity(header.len() + block.len());
    bytes.extend_from_slice(header);
    bytes.extend_from_slice(block);
    match kind {
        TextKind::Csv { separator } => CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(INFER_ROWS))
            .with_schema(schema.cloned())
            .with_n_rows(n_rows)
            .with_parse_options(
                CsvParseOptions::default()
                    .with_separator(separator)
                    .with_try_parse_dates(false),
            )
            .into_reader_with_file_handle(std::io::Cursor::new(bytes))
            .finish(),
        TextKind::Ndjson => {
            let mut r = JsonReader::new(std::io::Cursor::new(bytes))
                .with_json_format(JsonFormat::JsonLines)
                .infer_schema_len(std::num::NonZeroUsize::new(INFER_ROWS));
            if let Some(s) = schema {
                r = r.with_schema(s.clone());
            }
            r.finish()
        }
    }
}

/// A text input's first record (its CSV header line), and the rest.
fn split_header(block: Vec<u8>) -> (Vec<u8>, Vec<u8>) {
    let mut in_quotes = false;
    let end = block
        .iter()
        .position(|&b| {
            if b == b'"' {
                in_quotes = !in_quotes;
            }
            b == b'\n' && !in_quotes
        })
        .map_or(block.len(), |i| i + 1);
    let mut header = block;
    let rest = header.split_off(end);
    (header, rest)
}

/// How the blocks are parsed: the schema every block is read with.
enum Typing {
    /// inferred from the first rows (the in-memory reader's first try)
    Inferred,
    /// every column text (a later row broke the inferred types)
    AllText,
}

/// Spools one CSV or NDJSON file (plain, gzip or zstd) to parquet; with
/// `overlap`, the parquet is written on a thread of its own while the next
/// block is parsed.
pub fn spool(
    name: &str,
    path: &Path,
    kind: TextKind,
    maps: &[UserMap],
    block_len: usize,
    overlap: bool,
) -> Result<Spooled> {
    match spool_typed(name, path, kind, maps, block_len, Typing::Inferred, overlap) {
        Err(e) if kind != TextKind::Ndjson && e.downcast_ref::<PolarsError>().is_some() => {
            // later rows break the inferred types: all text, normalisation counts
            spool_typed(name, path, kind, maps, block_len, Typing::AllText, overlap)
                .map_err(|e| anyhow!("{name}: not a CSV file with a header row: {e}"))
        }
        Err(e) if e.downcast_ref::<PolarsError>().is_some() => Err(anyhow!(
            "{name}: not newline-delimited JSON objects: {}",
            decode::short(&e.to_string())
        )),
        other => other,
    }
}

fn spool_typed(
    name: &str,
    path: &Path,
    kind: TextKind,
    maps: &[UserMap],
    block_len: usize,
    typing: Typing,
    overlap: bool,
) -> Result<Spooled> {
    let csv = matches!(kind, TextKind::Csv { .. });
    let mut blocks = Blocks {
        reader: open_text(name, path)?,
        name: name.to_string(),
        csv,
        carry: Vec::new(),
        eof: false,
        compression: decode::Compression::of(&super::files::read_head(path, 4)?),
    };
    let first = blocks
        .next(BLOCK_BYTES, INFER_ROWS + 1)?
        .with_context(|| format!("{name}: the file is empty"))?;
    let mut shape = match kind {
        TextKind::Csv { separator } => Some(decode::CsvShape::new(name, separator)),
        TextKind::Ndjson => None,
    };
    let (header, first) = if csv {
        split_header(first)
    } else {
        (Vec::new(), first)
    };
    if let Some(s) = shape.as_mut() {
        s.feed(&header)?;
    }
    // the types of the first 10,000 rows, from those rows alone (polars
    // parses whole chunks, past n_rows, and would stop at a later row)
    let head = &first[..nth_record_end(&first, csv, INFER_ROWS)];
    let inferred = parse_block(kind, &header, head, None, Some(INFER_ROWS))
        .map_err(|e| anyhow!("{name}: {}", decode::short(&e.to_string())))?;
    // the rest of the first block goes back: blocks are block-sized from here
    let mut first = first;
    if let (Some(cut), _) = last_record_end(&first[..first.len().min(block_len)], csv)
        && cut < first.len()
    {
        let mut rest = first.split_off(cut);
        rest.append(&mut blocks.carry);
        blocks.carry = rest;
    }
    let schema: SchemaRef = match typing {
        Typing::Inferred => inferred.schema().clone(),
        Typing::AllText => Arc::new(
            inferred
                .schema()
                .iter_names()
                .map(|n| Field::new(n.clone(), DataType::String))
                .collect(),
        ),
    };
    let columns: Vec<String> = schema.iter_names().map(|s| s.to_string()).collect();
    let (resolved, twins) = mapped_columns(name, &columns, maps)?;
    let kept: Vec<PlSmallStr> = resolved.iter().map(|r| r.source.as_str().into()).collect();
    let (file, out) = TempFile::create("parquet")?;
    let spool_schema: Schema = kept.iter().filter_map(|c| schema.get_field(c)).collect();
    let writer = ParquetWriter::new(std::io::BufWriter::with_capacity(1 << 20, out))
        .with_compression(ParquetCompression::Lz4Raw)
        .batched(&spool_schema)?;
    let mut line = 1usize;
    let mut block = Some(first);
    // each block parsed and checked, in order, its mapped columns handed on
    let mut next_frame = || -> Result<Option<DataFrame>> {
        let Some(b) = block.take() else {
            if let Some(s) = shape.take() {
                s.end()?;
            }
            return Ok(None);
        };
        match shape.as_mut() {
            Some(s) => s.feed(&b)?,
            None => line = decode::check_ndjson_block(name, line, &b)?,
        }
        let frame = parse_block(kind, &header, &b, Some(&schema), None)?;
        crate::samples::check_twins(&frame, &resolved, &twins, name)?;
        let mut kept_frame = frame.select(kept.iter().cloned())?;
        kept_frame.rechunk_mut();
        block = blocks.next(block_len, 1)?;
        Ok(Some(kept_frame))
    };
    let rows = write_frames(&mut next_frame, writer, overlap)?;
    Ok(Spooled { file, rows })
}

type SpoolWriter = polars::io::parquet::write::BatchedWriter<std::io::BufWriter<std::fs::File>>;

/// Every frame of `next_frame` written to the spool, on this thread or, with
/// `overlap`, beside it ([`write_beside`]); returns the rows written.
fn write_frames(
    next_frame: &mut dyn FnMut() -> Result<Option<DataFrame>>,
    mut writer: SpoolWriter,
    overlap: bool,
) -> Result<u64> {
    if overlap {
        return write_beside(next_frame, writer);
    }
    let mut rows = 0u64;
    while let Some(frame) = next_frame()? {
        rows += frame.height() as u64;
        writer.write_batch(&frame)?;
    }
    writer.finish()?;
    Ok(rows)
}

/// The spool's parquet writer on a thread of its own, fed the frames of
/// `next_frame` through a rendezvous channel: the next block is parsed while
/// the last one is encoded and written (one more block's frame alive, not a
/// queue). Returns the rows written. A parse error is returned as it came
/// (`spool` reads a typing error from it); a write error stops the parsing.
fn write_beside(
    next_frame: &mut dyn FnMut() -> Result<Option<DataFrame>>,
    mut writer: SpoolWriter,
) -> Result<u64> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<DataFrame>(0);
        let writing = scope.spawn(move || -> PolarsResult<()> {
            for frame in rx {
                writer.write_batch(&frame)?;
            }
            writer.finish().map(|_| ())
        });
        let mut rows = 0u64;
        let parsed = loop {
            match next_frame() {
                Ok(Some(frame)) => {
                    rows += frame.height() as u64;
                    if tx.send(frame).is_err() {
                        break Ok(()); // the writer stopped: its error is below
                    }
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        drop(tx);
        let written = writing
            .join()
            .map_err(|_| anyhow!("the spool's writer thread panicked"))?;
        parsed?;
        written?;
        Ok(rows)
    })
}

/// What a text input is, when it streams: CSV (not wide, not an nvidia-smi
/// log) or NDJSON (not a JSON array), plain or compressed; None otherwise
/// (read in memory as before).
pub fn text_kind_of(path: &Path, forced: Option<super::InputFormat>) -> Result<Option<TextKind>> {
    use super::InputFormat;
    if path.is_dir() {
        return Ok(None);
    }
    let compressed = super::files::is_compressed(path)?;
    let named = if let Some(f) = forced {
        Some(f)
    } else if compressed {
        InputFormat::from_extension(&decode::inner_name(path))
    } else {
        Some(super::format_of(path, forced)?)
    };
    let head = if compressed {
        let mut h = Vec::new();
        let read = open_text(&path.display().to_string(), path)
            .and_then(|r| Ok(r.take(4096).read_to_end(&mut h)?));
        if read.is_err() {
            return Ok(None); // corrupt: the in-memory reader names the file and why
        }
        h
    } else {
        super::files::read_head(path, 4096)?
    };
    let kind = match named {
        Some(InputFormat::Csv) => InputFormat::Csv,
        Some(InputFormat::Ndjson) => InputFormat::Ndjson,
        None if compressed => match decode::text_kind(&head) {
            decode::Text::Csv => InputFormat::Csv,
            decode::Text::Ndjson => InputFormat::Ndjson,
            decode::Text::JsonArray => return Ok(None),
        },
        _ => return Ok(None),
    };
    let separator = decode::separator_of(&decode::inner_name(path));
    match kind {
        InputFormat::Ndjson if head.trim_ascii_start().starts_with(b"[") => Ok(None),
        InputFormat::Ndjson => Ok(Some(TextKind::Ndjson)),
        _ => {
            let text = String::from_utf8_lossy(&head);
            // wide columns, trailing commas, zones, an nvidia-smi log: their own readers
            if InputFormat::sniff(&head) == Some(InputFormat::NvidiaSmiCsv)
                || !super::wide::plain_text(&text)
            {
                return Ok(None);
            }
            Ok(Some(TextKind::Csv { separator }))
        }
    }
}

/// Inputs with their CSV/NDJSON spooled to parquet, and the spools (removed
/// when this is dropped).
pub struct SpooledInputs {
    /// every input, each text one replaced by its spool (under its own name)
    pub inputs: Vec<(String, Input)>,
    /// data rows of text read in blocks
    pub rows: u64,
    _files: Vec<TempFile>,
}

/// How much memory a text input would take read whole, as bytes of text: a
/// compressed file counts eight times its size (CSV compresses about so).
fn text_bytes(path: &Path) -> Result<u64> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok(if super::files::is_compressed(path)? {
        size.saturating_mul(8)
    } else {
        size
    })
}

/// The inputs with their CSV/NDJSON spooled, when those are above `bound`
/// bytes in all and every input streams (parquet, or CSV/NDJSON that reads
/// as a plain table); None otherwise: the inputs are read whole, as before.
pub fn spool_inputs(
    inputs: &[(String, Input)],
    opts: &super::ReadOptions,
    bound: u64,
) -> Result<Option<SpooledInputs>> {
    use super::InputFormat;
    if opts.format.is_some_and(|f| {
        !matches!(
            f,
            InputFormat::Parquet | InputFormat::Csv | InputFormat::Ndjson
        )
    }) {
        return Ok(None);
    }
    // (index, path, kind) of each text input; stdin read whole stays in memory
    let mut texts = Vec::new();
    let mut total = 0u64;
    for (i, (_, input)) in inputs.iter().enumerate() {
        match input {
            Input::ParquetDir(_) => {}
            Input::File(p)
                if !super::files::is_compressed(p)?
                    && super::format_of(p, opts.format)? == InputFormat::Parquet => {}
            Input::File(p) => match text_kind_of(p, opts.format)? {
                Some(kind) => {
                    total = total.saturating_add(text_bytes(p)?);
                    texts.push((i, p.clone(), kind));
                }
                None => return Ok(None),
            },
            Input::Stdin | Input::Bytes(_) => return Ok(None),
        }
    }
    if texts.is_empty() || total <= bound {
        return Ok(None);
    }
    let mut out = inputs.to_vec();
    let (mut files, mut rows) = (Vec::new(), 0u64);
    let _heap = HeapForBlocks::enter();
    for (i, path, kind) in texts {
        let name = &inputs[i].0;
        // the writer beside the parser unless read-ahead is turned off
        let overlap = opts.read_ahead != Some(false);
        let spooled = spool(name, &path, kind, &opts.maps, block_bytes(opts), overlap)?;
        rows += spooled.rows;
        out[i].1 = Input::File(spooled.file.path().to_path_buf());
        files.push(spooled.file);
    }
    Ok(Some(SpooledInputs {
        inputs: out,
        rows,
        _files: files,
    }))
}

/// Standard input read once, before anything chooses how to read it: whole
/// when it fits `bound`, else copied to a temporary file named `-` in
/// `inputs` (returned: the file lives as long as it).
pub fn read_stdin_once(inputs: &mut [(String, Input)], bound: u64) -> Result<Option<TempFile>> {
    if !inputs.iter().any(|(_, i)| *i == Input::Stdin) {
        return Ok(None);
    }
    let (input, spill) = match take_stdin(bound)? {
        Stdin::Bytes(b) => (Input::Bytes(Arc::new(b)), None),
        Stdin::Spilled(f) => (Input::File(f.path().to_path_buf()), Some(f)),
    };
    for (_, i) in inputs.iter_mut().filter(|(_, i)| *i == Input::Stdin) {
        *i = input.clone();
    }
    Ok(spill)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_on_record_edges_outside_quotes() {
        assert_eq!(last_record_end(b"a,b\n1,2\n3", true), (Some(8), 2));
        // a newline inside quotes ends nothing
        assert_eq!(last_record_end(b"a,\"x\ny\"\n1", true), (Some(8), 1));
        assert_eq!(last_record_end(b"{\"a\":1}\n{", false), (Some(8), 1));
        assert_eq!(last_record_end(b"no newline", true), (None, 0));
    }

    #[test]
    fn the_header_is_the_first_record() {
        let (h, rest) = split_header(b"\"a\nb\",c\n1,2\n".to_vec());
        assert_eq!(h, b"\"a\nb\",c\n");
        assert_eq!(rest, b"1,2\n");
    }
}
