//! The number formats a peak is given for.
use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Fp64,
    Fp32,
    Tf32,
    Bf16,
    Fp16,
    Fp8,
    Int8,
}

impl Dtype {
    pub const ALL: [Dtype; 7] = [
        Dtype::Fp64,
        Dtype::Fp32,
        Dtype::Tf32,
        Dtype::Bf16,
        Dtype::Fp16,
        Dtype::Fp8,
        Dtype::Int8,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp64 => "fp64",
            Dtype::Fp32 => "fp32",
            Dtype::Tf32 => "tf32",
            Dtype::Bf16 => "bf16",
            Dtype::Fp16 => "fp16",
            Dtype::Fp8 => "fp8",
            Dtype::Int8 => "int8",
        }
    }

    /// Parse a dtype as written in a jobs file ("bf16", "BF16", "bfloat16", "float16", ...).
    pub fn parse(text: &str) -> Option<Dtype> {
        let t = text.trim().to_ascii_lowercase();
        Some(match t.as_str() {
            "fp64" | "float64" | "f64" => Dtype::Fp64,
            "fp32" | "float32" | "f32" => Dtype::Fp32,
            "tf32" | "tensorfloat32" => Dtype::Tf32,
            "bf16" | "bfloat16" => Dtype::Bf16,
            "fp16" | "float16" | "f16" | "half" => Dtype::Fp16,
            "fp8" | "float8" | "e4m3" | "e5m2" => Dtype::Fp8,
            "int8" | "i8" => Dtype::Int8,
            _ => return None,
        })
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_names() {
        assert_eq!(Dtype::parse("BF16"), Some(Dtype::Bf16));
        assert_eq!(Dtype::parse("bfloat16"), Some(Dtype::Bf16));
        assert_eq!(Dtype::parse("fp4"), None);
    }
}
