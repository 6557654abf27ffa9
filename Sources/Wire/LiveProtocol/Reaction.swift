/// The fixed set of reactions a stream declared with reactions accepts; anything else is `invalid`.
public enum Reaction: String, Sendable, Hashable, CaseIterable {
    /// ❤️
    case heart
    /// 👍
    case like
    /// 😂
    case laugh
    /// 😮
    case wow
    /// 👏
    case clap
    /// 🔥
    case fire
}
