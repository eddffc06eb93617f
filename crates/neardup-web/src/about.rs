//! What the page says about the core it runs: the values its inputs start
//! at and the versions in its footer. The page takes them from here (see
//! `web/assemble.mjs`), so that each is written once, in the core, and a
//! change of default or of extractor reaches the page with the next build.

use neardup::WordRule;
use serde_json::{json, Map, Value};

/// The core's defaults and versions, as the page shows them:
/// `{"algorithm", "algorithms", "extractor", "k", "n", "threshold",
/// "words"}`. `k`, `n` and `words` (the word rule's name) are
/// [`neardup::Params::DEFAULT`]'s; `algorithms` maps each word rule's name
/// to its receipts' algorithm id (`{"script":
/// "kar-script-shingle-minhash-v1", "space": "kar-shingle-minhash-v1"}`),
/// so that the page names a receipt's rule without spelling the ids
/// itself; `threshold` is `neardup scan`'s default,
/// [`neardup::Threshold::NEAR_DUPLICATE`], at which the page's clusters are
/// drawn, as a decimal string (thresholds are never floats);
/// `extractor` is [`neardup_extract::VERSION`], which a receipt over an
/// extracted document depends on.
///
/// ```
/// let about = neardup_web::about();
/// assert_eq!(about["k"], 5);
/// assert_eq!(about["words"], "space");
/// assert_eq!(about["algorithms"]["script"], "kar-script-shingle-minhash-v1");
/// assert_eq!(about["threshold"], "0.75");
/// assert_eq!(about["extractor"], "neardup-extract-v1");
/// ```
pub fn about() -> Value {
    let params = neardup::Params::DEFAULT;
    let algorithms: Map<String, Value> = WordRule::ALL
        .into_iter()
        .map(|r| (r.name().to_owned(), r.algorithm().into()))
        .collect();
    json!({
        "algorithm": neardup::ALGORITHM,
        "algorithms": algorithms,
        "extractor": neardup_extract::VERSION,
        "k": params.k(),
        "n": params.n(),
        "threshold": neardup::Threshold::NEAR_DUPLICATE.to_string(),
        "words": params.words().name(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_s_own_values() {
        let about = about();
        let params = neardup::Params::DEFAULT;
        assert_eq!(about["k"].as_u64(), Some(params.k() as u64));
        assert_eq!(about["n"].as_u64(), Some(params.n() as u64));
        let threshold = about["threshold"].as_str().unwrap();
        assert_eq!(
            neardup::Threshold::parse(threshold).unwrap(),
            neardup::Threshold::NEAR_DUPLICATE
        );
        assert_eq!(about["extractor"], neardup_extract::VERSION);
        assert_eq!(about["algorithm"], neardup::ALGORITHM);
        assert_eq!(about["words"], params.words().name());
        for rule in WordRule::ALL {
            assert_eq!(about["algorithms"][rule.name()], rule.algorithm());
        }
    }
}
