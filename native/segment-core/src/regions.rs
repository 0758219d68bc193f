//! Region adjacency graph with union-find merging.
//!
//! Every valid face starts as its own region; a region keeps its area, face count, centroid sum
//! and a short list of neighbouring regions with the (affinity-weighted) length of the shared
//! boundary. Merging moves the smaller neighbour list into the larger one, so a full
//! agglomeration costs about O(F log F) list moves.

pub struct Regions {
    parent: Vec<u32>,
    pub area: Vec<f64>,
    pub count: Vec<u32>,
    pub centroid_sum: Vec<[f64; 3]>,
    /// Neighbour region, boundary weight and boundary length.
    pub nbrs: Vec<Vec<(u32, f64, f64)>>,
    pub alive: Vec<bool>,
    /// Bumped on every merge so stale heap entries can be recognised.
    pub version: Vec<u32>,
    pub live: usize,
}

impl Regions {
    /// One region per valid face; `weight(k)` gives the boundary weight of adjacency entry `k`.
    pub fn new(d: &crate::dual::Dual, weight: impl Fn(usize) -> f64) -> Regions {
        let n = d.faces;
        let mut nbrs: Vec<Vec<(u32, f64, f64)>> = Vec::with_capacity(n);
        for f in 0..n {
            let (s, e) = (d.start[f] as usize, d.start[f + 1] as usize);
            let mut list: Vec<(u32, f64, f64)> = Vec::with_capacity(e - s);
            for k in s..e {
                let g = d.adj[k];
                let (w, l) = (weight(k), d.edge_len[k]);
                match list.iter_mut().find(|x| x.0 == g) {
                    Some(x) => {
                        x.1 += w;
                        x.2 += l;
                    }
                    None => list.push((g, w, l)),
                }
            }
            nbrs.push(list);
        }
        let live = d.valid.iter().filter(|&&v| v).count();
        Regions {
            parent: (0..n as u32).collect(),
            area: d.area.clone(),
            count: vec![1; n],
            centroid_sum: d.centroid.clone(),
            nbrs,
            alive: d.valid.clone(),
            version: vec![0; n],
            live,
        }
    }

    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    pub fn centroid(&self, r: usize) -> [f64; 3] {
        let c = self.centroid_sum[r];
        let n = self.count[r] as f64;
        [c[0] / n, c[1] / n, c[2] / n]
    }

    /// Merges two live regions and returns the survivor.
    pub fn merge(&mut self, a: u32, b: u32) -> u32 {
        let (keep, gone) = if self.nbrs[a as usize].len() >= self.nbrs[b as usize].len() {
            (a, b)
        } else {
            (b, a)
        };
        let (k, g) = (keep as usize, gone as usize);
        let moved = std::mem::take(&mut self.nbrs[g]);
        self.nbrs[k].retain(|x| x.0 != gone);
        for (n, w, l) in moved {
            if n == keep {
                continue;
            }
            match self.nbrs[k].iter_mut().find(|x| x.0 == n) {
                Some(x) => {
                    x.1 += w;
                    x.2 += l;
                }
                None => self.nbrs[k].push((n, w, l)),
            }
            // The neighbour now borders `keep` instead of `gone`.
            let list = &mut self.nbrs[n as usize];
            list.retain(|x| x.0 != gone);
            match list.iter_mut().find(|x| x.0 == keep) {
                Some(x) => {
                    x.1 += w;
                    x.2 += l;
                }
                None => list.push((keep, w, l)),
            }
        }
        self.parent[g] = keep;
        self.area[k] += self.area[g];
        self.count[k] += self.count[g];
        let c = self.centroid_sum[g];
        let s = &mut self.centroid_sum[k];
        s[0] += c[0];
        s[1] += c[1];
        s[2] += c[2];
        self.alive[g] = false;
        self.version[k] += 1;
        self.version[g] += 1;
        self.live -= 1;
        keep
    }
}
