//! A Qdrant server or cluster over gRPC (qdrant-client). Same point ids, payload
//! and payload indexes as the embedded store; each generation writes its own
//! collection (`<prefix>-<generation>`), so a rebuild never disturbs the
//! collection the serving generation reads.

use qdrant_client::Qdrant;
use qdrant_client::qdrant::point_id::PointIdOptions;
use qdrant_client::qdrant::value::Kind;
use qdrant_client::qdrant::{
    Condition, CountPointsBuilder, CreateCollectionBuilder, CreateFieldIndexCollectionBuilder, Distance, FieldType,
    Filter, Fusion, GetPointsBuilder, Modifier, NamedVectors, PointId, PointStruct, PrefetchQueryBuilder, Query,
    QueryPointsBuilder, SearchParamsBuilder, SparseVectorParamsBuilder, SparseVectorsConfigBuilder,
    UpsertPointsBuilder, Value, Vector, VectorInput, VectorParamsBuilder, VectorsOutput,
};
use std::collections::HashMap;

use super::settings::API_KEY_VARIABLE;
use super::store::{
    INTEGER_FIELDS, KEYWORD_FIELDS, NO_FIELD, SPARSE_VECTOR_NAME, SearchTuning, SparseQuery, VectorFilter, VectorPoint,
    VectorQuery, VectorStore, point_id,
};
use super::unavailable::Unavailable;

pub struct ServerStore {
    client: Qdrant,
    collection: String,
    tuning: SearchTuning,
    // qdrant-client is async; the store's interface is synchronous like the embedded one.
    runtime: tokio::runtime::Runtime,
}

fn fail(what: &'static str) -> impl Fn(qdrant_client::QdrantError) -> Unavailable {
    move |e| Unavailable(format!("Qdrant server: {what} failed ({e})"))
}

impl ServerStore {
    /// Connects to an existing collection.
    pub(crate) fn connect(url: &str, collection: &str, tuning: SearchTuning) -> Result<Self, Unavailable> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Unavailable(format!("cannot start the Qdrant client runtime ({e})")))?;
        let api_key = std::env::var(API_KEY_VARIABLE).ok().filter(|k| !k.is_empty());
        // qdrant-client's own version check prints to stdout, which belongs to
        // results (and to MCP when serving); the check is done here instead.
        let client =
            Qdrant::from_url(url).api_key(api_key).skip_compatibility_check().build().map_err(fail("connect"))?;
        let health = runtime.block_on(client.health_check()).map_err(fail("health check"))?;
        if !compatible(&health.version) {
            tracing::warn!(server = %health.version, client = CLIENT_VERSION, "Qdrant server version may be incompatible");
        }
        Ok(Self { client, collection: collection.to_owned(), tuning, runtime })
    }

    /// Creates the collection (cosine distance) and its payload indexes, and
    /// with `sparse`, the lexical lane's named sparse vectors (IDF modifier).
    pub fn create(
        url: &str,
        collection: &str,
        dimension: usize,
        sparse: bool,
        tuning: SearchTuning,
    ) -> Result<Self, Unavailable> {
        let store = Self::connect(url, collection, tuning)?;
        let mut create = CreateCollectionBuilder::new(collection)
            .vectors_config(VectorParamsBuilder::new(dimension as u64, Distance::Cosine));
        if sparse {
            let mut config = SparseVectorsConfigBuilder::default();
            config.add_named_vector_params(
                SPARSE_VECTOR_NAME,
                SparseVectorParamsBuilder::default().modifier(Modifier::Idf),
            );
            create = create.sparse_vectors_config(config);
        }
        store.runtime.block_on(async {
            store.client.create_collection(create).await.map_err(fail("create collection"))?;
            let indexes = KEYWORD_FIELDS
                .iter()
                .map(|f| (*f, FieldType::Keyword))
                .chain(INTEGER_FIELDS.iter().map(|f| (*f, FieldType::Integer)));
            for (field, kind) in indexes {
                store
                    .client
                    .create_field_index(CreateFieldIndexCollectionBuilder::new(collection, field, kind).wait(true))
                    .await
                    .map_err(fail("create payload index"))?;
            }
            Ok::<_, Unavailable>(())
        })?;
        Ok(store)
    }

    pub fn drop_collection(&self) -> Result<(), Unavailable> {
        self.runtime
            .block_on(self.client.delete_collection(self.collection.as_str()))
            .map(|_| ())
            .map_err(fail("drop collection"))
    }
}

/// The qdrant-client version this build uses (pinned in Cargo.toml).
const CLIENT_VERSION: &str = "1.20.0";

/// Qdrant's rule: same major version, minor versions at most one apart.
fn compatible(server: &str) -> bool {
    let parse = |v: &str| -> Option<(u64, u64)> {
        let mut parts = v.split('.').map(|p| p.parse::<u64>().ok());
        Some((parts.next()??, parts.next()??))
    };
    match (parse(server), parse(CLIENT_VERSION)) {
        (Some((smaj, smin)), Some((cmaj, cmin))) => smaj == cmaj && smin.abs_diff(cmin) <= 1,
        _ => false,
    }
}

fn to_filter(filter: &VectorFilter) -> Option<Filter> {
    if filter.is_empty() {
        return None;
    }
    let mut must = Vec::new();
    if let Some(language) = &filter.language {
        must.push(Condition::matches("language", language.clone()));
    }
    if let Some(work) = &filter.work {
        must.push(Condition::matches("work", work.clone()));
    }
    if !filter.entity_ids.is_empty() {
        must.push(Condition::matches("entity_ids", filter.entity_ids.clone()));
    }
    if let Some(years) = filter.year_list() {
        must.push(Condition::matches("year", years));
    }
    Some(Filter::must(must))
}

fn to_payload(point: &VectorPoint) -> qdrant_client::Payload {
    let mut payload = qdrant_client::Payload::new();
    payload.insert("passage_id", point.passage_id.as_str());
    payload.insert(NO_FIELD, i64::from(point.no.0));
    payload.insert("document_id", point.document_id.as_str());
    payload.insert("language", point.language.as_str());
    payload.insert("entity_ids", point.entity_ids.iter().map(|e| Value::from(e.as_str())).collect::<Vec<Value>>());
    if let Some(work) = &point.work {
        payload.insert("work", work.as_str());
    }
    if let Some(year) = point.year {
        payload.insert("year", i64::from(year));
    }
    payload
}

fn passage_id_of(payload: &HashMap<String, Value>) -> Option<String> {
    match &payload.get("passage_id")?.kind {
        Some(Kind::StringValue(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The name the unnamed dense vector goes by beside named ones.
const DENSE_VECTOR_NAME: &str = "";

/// A point's vectors: the dense one alone, or named beside its sparse one.
fn point_vectors(point: &VectorPoint) -> qdrant_client::qdrant::Vectors {
    match &point.sparse {
        None => point.vector.clone().into(),
        Some(sparse) => NamedVectors::default()
            .add_vector(DENSE_VECTOR_NAME, point.vector.clone())
            .add_vector(SPARSE_VECTOR_NAME, Vector::new_sparse(sparse.indices.clone(), sparse.values.clone()))
            .into(),
    }
}

fn dense(vectors: Option<VectorsOutput>) -> Option<Vec<f32>> {
    match vectors?.get_vector_by_name(DENSE_VECTOR_NAME)? {
        qdrant_client::qdrant::vector_output::Vector::Dense(d) => Some(d.data),
        _ => None,
    }
}

impl ServerStore {
    fn scored(&self, request: QueryPointsBuilder) -> Result<Vec<(u64, f32)>, Unavailable> {
        let response = self.runtime.block_on(self.client.query(request)).map_err(fail("query"))?;
        Ok(response
            .result
            .into_iter()
            .filter_map(|p| match p.id?.point_id_options? {
                PointIdOptions::Num(id) => Some((id, p.score)),
                PointIdOptions::Uuid(_) => None,
            })
            .collect())
    }
}

impl VectorStore for ServerStore {
    fn upsert(&self, points: &[VectorPoint]) -> Result<(), Unavailable> {
        let points: Vec<PointStruct> =
            points.iter().map(|p| PointStruct::new(point_id(&p.passage_id), point_vectors(p), to_payload(p))).collect();
        self.runtime.block_on(async {
            self.client
                .upsert_points(UpsertPointsBuilder::new(&self.collection, points).wait(true))
                .await
                .map(|_| ())
                .map_err(fail("upsert"))
        })
    }

    fn finish(&self) -> Result<(), Unavailable> {
        // The server builds its HNSW graph itself; upserts were acknowledged with wait=true.
        Ok(())
    }

    fn search(&self, query: &VectorQuery) -> Result<Vec<(u64, f32)>, Unavailable> {
        let filter = to_filter(&query.filter);
        let params = SearchParamsBuilder::default().hnsw_ef(self.tuning.hnsw_ef as u64).exact(self.tuning.exact);
        // A search needs only each point's id.
        let mut request = QueryPointsBuilder::new(&self.collection).limit(query.limit as u64).with_payload(false);
        match query.vectors.as_slice() {
            [] => return Ok(Vec::new()),
            [only] => {
                request = request.query(Query::new_nearest(only.clone())).params(params);
                if let Some(filter) = filter {
                    request = request.filter(filter);
                }
            }
            many => {
                for vector in many {
                    let mut prefetch = PrefetchQueryBuilder::default()
                        .query(Query::new_nearest(vector.clone()))
                        .limit(query.limit as u64)
                        .params(params.clone());
                    if let Some(filter) = &filter {
                        prefetch = prefetch.filter(filter.clone());
                    }
                    request = request.add_prefetch(prefetch);
                }
                request = request.query(Query::new_fusion(Fusion::Rrf));
            }
        }
        self.scored(request)
    }

    fn sparse_search(&self, query: &SparseQuery) -> Result<Vec<(u64, f32)>, Unavailable> {
        if query.vector.indices.is_empty() {
            return Ok(Vec::new());
        }
        let sparse = VectorInput::new_sparse(query.vector.indices.clone(), query.vector.values.clone());
        let mut request = QueryPointsBuilder::new(&self.collection)
            .query(Query::new_nearest(sparse))
            .using(SPARSE_VECTOR_NAME)
            .limit(query.limit as u64)
            .with_payload(false);
        if let Some(filter) = to_filter(&query.filter) {
            request = request.filter(filter);
        }
        self.scored(request)
    }

    fn vectors(&self, passage_ids: &[String]) -> Result<HashMap<String, Vec<f32>>, Unavailable> {
        let ids: Vec<PointId> = passage_ids.iter().map(|id| PointId::from(point_id(id))).collect();
        let request = GetPointsBuilder::new(&self.collection, ids).with_payload(true).with_vectors(true);
        let response = self.runtime.block_on(self.client.get_points(request)).map_err(fail("get points"))?;
        Ok(response.result.into_iter().filter_map(|p| Some((passage_id_of(&p.payload)?, dense(p.vectors)?))).collect())
    }

    fn count(&self) -> Result<usize, Unavailable> {
        let response = self
            .runtime
            .block_on(self.client.count(CountPointsBuilder::new(&self.collection).exact(true)))
            .map_err(fail("count"))?;
        Ok(response.result.map_or(0, |r| r.count as usize))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_compatibility_follows_qdrant_rule() {
        assert!(super::compatible("1.20.3"));
        assert!(super::compatible("1.19.0"));
        assert!(!super::compatible("1.17.0"));
        assert!(!super::compatible("2.20.0"));
        assert!(!super::compatible("dev"));
    }
}
