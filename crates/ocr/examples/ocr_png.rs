//! Reads a PNG screenshot and prints the labels handrail's OCR finds, with timings.
//!
//! `cargo run --release -p handrail-ocr --example ocr_png -- shot.png [--langs eng] [--psm 3|11]
//!  [--upscale never|always|auto] [--parallel N] [--repeat N] [--var name=value]...
//!  [--terminal X,Y,W,H [--terminal-factor N] [--terminal-psm 6|11] [--terminal-min-conf C]
//!  [--terminal-keep-cursor]]`
//!
//! `--terminal` names a region showing a terminal (as the engine does for a frontmost terminal window).
//!
//! Set `OMP_THREAD_LIMIT=1` in the environment (the example also does it in-process first thing).

use std::time::Instant;

use handrail_ocr::{PageSegMode, TesseractConfig, TesseractOcr, Upscale};
use handrail_platform::Rect;
use handrail_platform::{Frame, Ocr};

fn load_png(path: &str) -> Result<Frame, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("image too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .flat_map(|p| match channels {
            1 | 2 => [p[0], p[0], p[0]],
            _ => [p[0], p[1], p[2]],
        })
        .collect();
    Ok(handrail_imaging::frame_from_rgb(info.width, info.height, &rgb))
}

/// CPU time of the whole process (all threads) in ms: robust against other load on the machine.
fn cpu_ms() -> f64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid rusage either way.
    let ru = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr());
        ru.assume_init()
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn main() -> Result<(), String> {
    handrail_ocr::ensure_thread_limit_or_reexec();
    // `HANDRAIL_LOG=trace` shows every word Tesseract returned.
    handrail_sandbox::log_to_stderr();
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut config = TesseractConfig::default();
    let mut repeat = 1;
    let mut then = None;
    let mut terminal = None;
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--langs" => config.languages = value()?,
            "--psm" => config.page_seg_mode = if value()? == "3" { PageSegMode::Auto } else { PageSegMode::SparseText },
            "--upscale" => {
                config.upscale = match value()?.as_str() {
                    "never" => Upscale::Never,
                    "always" => Upscale::Always,
                    _ => Upscale::Auto,
                }
            }
            "--parallel" => config.parallelism = value()?.parse().map_err(|e| format!("--parallel: {e}"))?,
            "--then" => then = Some(value()?),
            "--terminal" => {
                let v: Vec<i64> = value()?.split(',').map(|n| n.trim().parse().unwrap_or(-1)).collect();
                let [x, y, w, h] = v[..] else { return Err("--terminal X,Y,W,H".into()) };
                if v.iter().any(|&n| n < 0) {
                    return Err("--terminal X,Y,W,H: non-negative integers".into());
                }
                terminal = Some(Rect::new(x as i32, y as i32, w as u32, h as u32));
            }
            "--terminal-factor" => {
                config.terminal.factor = value()?.parse().map_err(|e| format!("--terminal-factor: {e}"))?
            }
            "--terminal-min-conf" => {
                config.terminal.min_confidence = value()?.parse().map_err(|e| format!("--terminal-min-conf: {e}"))?
            }
            "--terminal-keep-cursor" => config.terminal.erase_cursor = false,
            "--terminal-psm" => {
                config.terminal.page_seg_mode =
                    if value()? == "11" { PageSegMode::SparseText } else { PageSegMode::SingleBlock }
            }
            "--repeat" => repeat = value()?.parse().map_err(|e| format!("--repeat: {e}"))?,
            "--no-split" => config.split_languages = false,
            "--no-normalize" => config.normalize_background = false,
            "--min-conf" => config.min_confidence = value()?.parse().map_err(|e| format!("--min-conf: {e}"))?,
            "--var" => {
                let v = value()?;
                let (n, x) = v.split_once('=').ok_or("--var name=value")?;
                config.variables.push((n.to_owned(), x.to_owned()));
            }
            _ => path = Some(a),
        }
    }
    let path = path.ok_or("usage: ocr_png shot.png [options]")?;
    let frame = load_png(&path)?;
    let t = Instant::now();
    let ocr = TesseractOcr::new(config);
    if let Some(why) = ocr.unavailable_reason() {
        return Err(why);
    }
    ocr.warm_up().map_err(|e| e.to_string())?;
    if let Some(t) = terminal {
        ocr.set_terminal_regions(vec![t]);
    }
    eprintln!("warm-up {:?} (thread limit in effect: {})", t.elapsed(), handrail_ocr::thread_limit_in_effect());
    let mut lines = Vec::new();
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..repeat {
        let (t, cpu) = (Instant::now(), cpu_ms());
        lines = ocr.recognize_full(&frame, None).map_err(|e| e.to_string())?;
        let (wall, cpu) = (t.elapsed().as_secs_f64() * 1e3, cpu_ms() - cpu);
        best = (best.0.min(wall), best.1.min(cpu));
        eprintln!("full pass {wall:.0} ms (cpu {cpu:.0} ms): {} lines", lines.len());
    }
    eprintln!("best wall {:.0} ms cpu {:.0} ms", best.0, best.1);
    for l in &lines {
        let b = l.bounds;
        println!("{:4},{:4} {:3}x{:2} {:3.0} {}", b.x, b.y, b.width, b.height, l.confidence, l.text);
    }
    // Same frame again: answered from memory.
    let t = Instant::now();
    let again = ocr.recognize(&frame, None).map_err(|e| e.to_string())?;
    eprintln!("unchanged frame {:?} ({} lines)", t.elapsed(), again.len());
    if let Some(next) = then {
        // The next screenshot incrementally, then the same from scratch, to compare.
        let next = load_png(&next)?;
        let t = Instant::now();
        let inc = ocr.recognize(&next, None).map_err(|e| e.to_string())?;
        let stats = ocr.stats();
        eprintln!("incremental {:?}: {} lines, regions {:?}", t.elapsed(), inc.len(), stats.last_regions);
        let full = ocr.recognize_full(&next, None).map_err(|e| e.to_string())?;
        for l in &inc {
            if !full.iter().any(|f| f.text == l.text && f.bounds == l.bounds) {
                eprintln!("  only incremental: {:?} {:?}", l.text, l.bounds);
            }
        }
        for f in &full {
            if !inc.iter().any(|l| f.text == l.text && f.bounds == l.bounds) {
                eprintln!("  only full:        {:?} {:?}", f.text, f.bounds);
            }
        }
    }
    Ok(())
}
