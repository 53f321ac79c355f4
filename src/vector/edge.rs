//! Embedded Qdrant (qdrant-edge): Qdrant's own segment, HNSW and payload-index
//! code, in process, stored inside the index generation. Its API is
//! synchronous; async callers use `spawn_blocking`.

use qdrant_edge::{
    AnyVariants, Condition, CreateIndex, DEFAULT_VECTOR_NAME, Distance, EdgeConfigBuilder, EdgeShard,
    EdgeSparseVectorParamsBuilder, EdgeVectorParamsBuilder, FieldCondition, FieldIndexOperations, Filter, Fusion,
    Match, Memory, Modifier, NamedQuery, Payload, PayloadFieldSchema, PayloadSchemaType, PointId,
    PointInsertOperations, PointOperations, PointStructPersisted, Prefetch, QueryEnum, QueryRequest, RetrieveRequest,
    ScoringQuery, SearchParams, UpdateOperation, VectorInternal, VectorPersisted, VectorStructInternal,
    VectorStructPersisted, WithPayloadInterface, WithVector,
};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::private_copy::PrivateCopy;
use super::store::{
    INTEGER_FIELDS, KEYWORD_FIELDS, SPARSE_VECTOR_NAME, SearchTuning, SparseQuery, SparseVector, VectorFilter,
    VectorPoint, VectorQuery, VectorStore, point_id,
};
use super::unavailable::Unavailable;

pub(crate) struct EdgeStore {
    // Declared before `_private` so the shard closes before its copy is deleted.
    shard: EdgeShard,
    tuning: SearchTuning,
    /// With sparse vectors: points written since the last optimisation, and how many make one (see `upsert`).
    unoptimised: Option<(AtomicUsize, usize)>,
    /// A process-private copy this store was opened from (see `open`).
    _private: Option<PrivateCopy>,
}

/// Points a store with sparse vectors takes between optimisations (see `upsert`). Synthetic 1M
/// passages: the build's peak anonymous memory 4,378 MB with one optimisation at the end, 1,394 MB
/// with one every 100,000 points (benches/README).
const OPTIMISE_SPARSE_EVERY: usize = 100_000;

fn fail(what: &str) -> impl Fn(qdrant_edge::OperationError) -> Unavailable + '_ {
    move |e| Unavailable(format!("embedded vector store: {what} failed ({e})"))
}

impl EdgeStore {
    /// Creates a new store with cosine distance and the payload indexes, and
    /// with `sparse`, the lexical lane's sparse vectors (IDF modifier).
    pub(crate) fn create(
        path: &Path,
        dimension: usize,
        sparse: bool,
        tuning: SearchTuning,
    ) -> Result<Self, Unavailable> {
        // The vectors live on disk (mmap, not preloaded), so a build holds in memory
        // only what the kernel keeps cached, not every vector twice (the appendable
        // segment's and the optimised one's). No WAL: a build that dies is discarded
        // whole, and `finish` flushes before the generation is published.
        let vectors = EdgeVectorParamsBuilder::new(dimension, Distance::Cosine).memory(Memory::Cold).build();
        let mut config = EdgeConfigBuilder::new().vector(DEFAULT_VECTOR_NAME, vectors).wal_enabled(false);
        if sparse {
            // An optimised segment's sparse index on disk, like the dense vectors (the segment
            // being appended to keeps its index on the heap whatever this says: benches/README).
            let params = EdgeSparseVectorParamsBuilder::new().modifier(Modifier::Idf).memory(Memory::Cold).build();
            config = config.sparse_vector(SPARSE_VECTOR_NAME, params);
        }
        let config = config.build();
        let shard = EdgeShard::new(path, config).map_err(fail("create"))?;
        let indexes = KEYWORD_FIELDS
            .iter()
            .map(|f| (*f, PayloadSchemaType::Keyword))
            .chain(INTEGER_FIELDS.iter().map(|f| (*f, PayloadSchemaType::Integer)));
        for (field, kind) in indexes {
            let field_name = field.try_into().map_err(|_| Unavailable(format!("bad payload field {field}")))?;
            shard
                .update(UpdateOperation::FieldIndexOperation(FieldIndexOperations::CreateIndex(CreateIndex {
                    field_name,
                    field_schema: Some(PayloadFieldSchema::FieldType(kind)),
                })))
                .map_err(fail("payload index"))?;
        }
        let unoptimised = sparse.then(|| (AtomicUsize::new(0), OPTIMISE_SPARSE_EVERY));
        Ok(Self { shard, tuning, unoptimised, _private: None })
    }

    /// Opens a store for reading, from a private copy made under `scratch`
    /// (see `private_copy`): loading a shard writes to it, and a published
    /// generation is never written.
    pub(crate) fn open(path: &Path, scratch: &Path, tuning: SearchTuning) -> Result<Self, Unavailable> {
        let copy = PrivateCopy::make(path, scratch)
            .map_err(|e| Unavailable(format!("embedded vector store: cannot make a private copy to read ({e})")))?;
        let shard = EdgeShard::load(copy.path(), None).map_err(fail("open"))?;
        Ok(Self { shard, tuning, unoptimised: None, _private: Some(copy) })
    }
}

fn to_filter(filter: &VectorFilter) -> Result<Option<Filter>, Unavailable> {
    if filter.is_empty() {
        return Ok(None);
    }
    let key = |k: &str| k.try_into().map_err(|_| Unavailable(format!("bad payload field {k}")));
    let mut must = Vec::new();
    if let Some(language) = &filter.language {
        must.push(Condition::Field(FieldCondition::new_match(key("language")?, Match::from(language.clone()))));
    }
    if let Some(work) = &filter.work {
        must.push(Condition::Field(FieldCondition::new_match(key("work")?, Match::from(work.clone()))));
    }
    if !filter.entity_ids.is_empty() {
        let any = AnyVariants::Strings(filter.entity_ids.iter().cloned().collect());
        must.push(Condition::Field(FieldCondition::new_match(key("entity_ids")?, Match::from(any))));
    }
    if let Some(years) = filter.year_list() {
        let any = AnyVariants::Integers(years.into_iter().collect());
        must.push(Condition::Field(FieldCondition::new_match(key("year")?, Match::from(any))));
    }
    Ok(Some(Filter { should: None, min_should: None, must: Some(must), must_not: None }))
}

fn nearest(vector: &[f32]) -> ScoringQuery {
    ScoringQuery::Vector(QueryEnum::Nearest(NamedQuery { query: VectorInternal::from(vector.to_vec()), using: None }))
}

fn sparse_nearest(vector: &SparseVector) -> Result<ScoringQuery, Unavailable> {
    let sparse = qdrant_edge::SparseVector::new(vector.indices.clone(), vector.values.clone())
        .map_err(|e| Unavailable(format!("embedded vector store: bad sparse query ({e})")))?;
    Ok(ScoringQuery::Vector(QueryEnum::Nearest(NamedQuery {
        query: VectorInternal::Sparse(sparse),
        using: Some(SPARSE_VECTOR_NAME.to_owned()),
    })))
}

/// A point's vectors: the dense one alone, or named beside its sparse one.
fn stored_vectors(point: &VectorPoint) -> Result<VectorStructPersisted, Unavailable> {
    let Some(sparse) = &point.sparse else {
        return Ok(VectorStructPersisted::from(VectorStructInternal::Single(point.vector.clone())));
    };
    let sparse = qdrant_edge::SparseVector::new(sparse.indices.clone(), sparse.values.clone())
        .map_err(|e| Unavailable(format!("embedded vector store: bad sparse vector ({e})")))?;
    Ok(VectorStructPersisted::Named(HashMap::from([
        (DEFAULT_VECTOR_NAME.to_owned(), VectorPersisted::Dense(point.vector.clone())),
        (SPARSE_VECTOR_NAME.to_owned(), VectorPersisted::Sparse(sparse)),
    ])))
}

fn dense(vector: Option<VectorStructInternal>) -> Option<Vec<f32>> {
    match vector? {
        VectorStructInternal::Single(v) => Some(v),
        VectorStructInternal::Named(mut named) => match named.remove(DEFAULT_VECTOR_NAME)? {
            VectorInternal::Dense(v) => Some(v),
            _ => None,
        },
        VectorStructInternal::MultiDense(_) => None,
    }
}

fn passage_id_of(payload: Option<&Payload>) -> Option<String> {
    payload?.0.get("passage_id")?.as_str().map(str::to_owned)
}

impl EdgeStore {
    fn scored(&self, request: QueryRequest) -> Result<Vec<(u64, f32)>, Unavailable> {
        let points = self.shard.query(request).map_err(fail("query"))?;
        Ok(points
            .into_iter()
            .filter_map(|p| match p.id {
                PointId::NumId(id) => Some((id, p.score)),
                PointId::Uuid(_) => None,
            })
            .collect())
    }
}

impl VectorStore for EdgeStore {
    fn upsert(&self, points: &[VectorPoint]) -> Result<(), Unavailable> {
        let points: Vec<PointStructPersisted> = points
            .iter()
            .map(|p| {
                Ok(PointStructPersisted {
                    id: PointId::NumId(point_id(&p.passage_id)),
                    vector: stored_vectors(p)?,
                    payload: Some(Payload(p.payload())),
                })
            })
            .collect::<Result<_, Unavailable>>()?;
        let written = points.len();
        self.shard
            .update(UpdateOperation::PointOperation(PointOperations::UpsertPoints(PointInsertOperations::PointsList(
                points,
            ))))
            .map_err(fail("upsert"))?;
        // The segment being appended to keeps its sparse index on the heap whatever the
        // configuration says, so a store with sparse vectors is optimised every
        // `OPTIMISE_SPARSE_EVERY` points: that segment becomes an immutable one whose index is
        // on disk, and a new one is appended to.
        if let Some((unoptimised, every)) = &self.unoptimised
            && unoptimised.fetch_add(written, Ordering::Relaxed) + written >= *every
        {
            unoptimised.store(0, Ordering::Relaxed);
            self.shard.flush().map_err(fail("flush"))?;
            self.shard.optimize().map_err(fail("optimize"))?;
        }
        Ok(())
    }

    fn finish(&self) -> Result<(), Unavailable> {
        self.shard.flush().map_err(fail("flush"))?;
        // Builds the HNSW graph; blocks and uses every core, so it runs once, at the end of a build.
        self.shard.optimize().map_err(fail("optimize"))?;
        self.shard.flush().map_err(fail("flush"))
    }

    fn search(&self, query: &VectorQuery) -> Result<Vec<(u64, f32)>, Unavailable> {
        let filter = to_filter(&query.filter)?;
        let params =
            Some(SearchParams { hnsw_ef: Some(self.tuning.hnsw_ef), exact: self.tuning.exact, ..Default::default() });
        let mut request = QueryRequest::new(query.limit);
        request.with_payload = WithPayloadInterface::Bool(false);
        match query.vectors.as_slice() {
            [] => return Ok(Vec::new()),
            [only] => {
                request.query = Some(nearest(only));
                request.filter = filter;
                request.params = params;
            }
            many => {
                request.prefetches = many
                    .iter()
                    .map(|v| {
                        let mut prefetch = Prefetch::new(query.limit);
                        prefetch.query = Some(nearest(v));
                        prefetch.filter = filter.clone();
                        prefetch.params = params.clone();
                        prefetch
                    })
                    .collect();
                request.query = Some(ScoringQuery::Fusion(Fusion::Rrf { k: 60, weights: None }));
            }
        }
        self.scored(request)
    }

    fn sparse_search(&self, query: &SparseQuery) -> Result<Vec<(u64, f32)>, Unavailable> {
        if query.vector.indices.is_empty() {
            return Ok(Vec::new());
        }
        let mut request = QueryRequest::new(query.limit);
        request.with_payload = WithPayloadInterface::Bool(false);
        request.query = Some(sparse_nearest(&query.vector)?);
        request.filter = to_filter(&query.filter)?;
        self.scored(request)
    }

    fn vectors(&self, passage_ids: &[String]) -> Result<HashMap<String, Vec<f32>>, Unavailable> {
        let mut request = RetrieveRequest::new(passage_ids.iter().map(|id| PointId::NumId(point_id(id))).collect());
        request.with_payload = Some(WithPayloadInterface::Bool(true));
        request.with_vector = Some(WithVector::Bool(true));
        let records = self.shard.retrieve(request).map_err(fail("retrieve"))?;
        Ok(records.into_iter().filter_map(|r| Some((passage_id_of(r.payload.as_ref())?, dense(r.vector)?))).collect())
    }

    fn count(&self) -> Result<usize, Unavailable> {
        Ok(self.shard.info().map_err(fail("info"))?.points_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passage::PassageNo;

    fn point(no: u32) -> VectorPoint {
        // Every point holds dimension 1; every second one dimension 2, every third dimension 3.
        let mut indices = vec![1];
        let mut values = vec![1.0 + no as f32 / 10.0];
        for (dim, every) in [(2u32, 2u32), (3, 3)] {
            if no.is_multiple_of(every) {
                indices.push(dim);
                values.push(0.5 + no as f32 / 20.0);
            }
        }
        VectorPoint {
            passage_id: format!("p.d.{no:04}"),
            no: PassageNo(no),
            vector: vec![1.0, no as f32, 0.5],
            sparse: Some(SparseVector { indices, values }),
            document_id: "d".into(),
            work: None,
            year: None,
            language: "en".into(),
            entity_ids: Vec::new(),
        }
    }

    /// A store with sparse vectors, optimised every `every` points, holding points 0..20 written three at a time.
    fn store(dir: &Path, every: usize) -> EdgeStore {
        let tuning = SearchTuning { hnsw_ef: 64, exact: true };
        let mut store = EdgeStore::create(dir, 3, true, tuning).unwrap();
        store.unoptimised = Some((AtomicUsize::new(0), every));
        let points: Vec<VectorPoint> = (0..20).map(point).collect();
        for chunk in points.chunks(3) {
            store.upsert(chunk).unwrap();
        }
        store.finish().unwrap();
        store
    }

    #[test]
    fn a_store_optimised_as_it_is_written_searches_as_one_optimised_at_the_end() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (once, often) = (store(a.path(), usize::MAX), store(b.path(), 4));
        assert_eq!((once.count().unwrap(), often.count().unwrap()), (20, 20));
        // Written three at a time: optimised after points 6, 12 and 18, two written since.
        let since = |store: &EdgeStore| store.unoptimised.as_ref().map(|(n, _)| n.load(Ordering::Relaxed));
        assert_eq!((since(&once), since(&often)), (Some(20), Some(2)));
        let query = |store: &EdgeStore, indices: Vec<u32>| {
            let vector = SparseVector { values: vec![1.0; indices.len()], indices };
            store.sparse_search(&SparseQuery { vector, filter: VectorFilter::default(), limit: 20 }).unwrap()
        };
        for indices in [vec![1], vec![2], vec![2, 3], vec![3, 9]] {
            let (x, y) = (query(&once, indices.clone()), query(&often, indices.clone()));
            assert!(!x.is_empty(), "{indices:?}");
            // The same points, and the same scores: IDF counts every segment's points.
            assert_eq!(x.len(), y.len(), "{indices:?}");
            for ((xp, xs), (yp, ys)) in x.iter().zip(&y) {
                assert_eq!(xp, yp, "{indices:?}");
                assert!((xs - ys).abs() < 1e-5, "{indices:?}: {xs} {ys}");
            }
        }
        assert_eq!(query(&often, vec![2]).len(), 10, "points 0, 2, … 18 hold dimension 2");
        let dense = VectorQuery { vectors: vec![vec![1.0, 19.0, 0.5]], filter: VectorFilter::default(), limit: 3 };
        assert_eq!(once.search(&dense).unwrap(), often.search(&dense).unwrap());
        // Stored vectors come back (normalised, as cosine stores them) from every segment.
        let ids: Vec<String> = (0..20).map(|no| format!("p.d.{no:04}")).collect();
        let kept = often.vectors(&ids).unwrap();
        assert_eq!(kept.len(), 20);
        assert_eq!(kept, once.vectors(&ids).unwrap());
    }
}
