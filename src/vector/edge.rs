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
    /// A process-private copy this store was opened from (see `open`).
    _private: Option<PrivateCopy>,
}

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
        Ok(Self { shard, tuning, _private: None })
    }

    /// Opens a store for reading, from a private copy made under `scratch`
    /// (see `private_copy`): loading a shard writes to it, and a published
    /// generation is never written.
    pub(crate) fn open(path: &Path, scratch: &Path, tuning: SearchTuning) -> Result<Self, Unavailable> {
        let copy = PrivateCopy::make(path, scratch)
            .map_err(|e| Unavailable(format!("embedded vector store: cannot make a private copy to read ({e})")))?;
        let shard = EdgeShard::load(copy.path(), None).map_err(fail("open"))?;
        Ok(Self { shard, tuning, _private: Some(copy) })
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
        let points = points
            .iter()
            .map(|p| {
                Ok(PointStructPersisted {
                    id: PointId::NumId(point_id(&p.passage_id)),
                    vector: stored_vectors(p)?,
                    payload: Some(Payload(p.payload())),
                })
            })
            .collect::<Result<_, Unavailable>>()?;
        self.shard
            .update(UpdateOperation::PointOperation(PointOperations::UpsertPoints(PointInsertOperations::PointsList(
                points,
            ))))
            .map_err(fail("upsert"))
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
