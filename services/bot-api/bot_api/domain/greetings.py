# ruff: noqa: RUF001 (the letters of other alphabets are meant)
"""What a new story's welcome and fallback interactions say, in each language a story
may be in (settings.LANGUAGES): the greetings the welcome answers and the default texts.

English greetings are answered in every language (people greet bots in English
everywhere); the story's own language adds its greetings. Written by hand: no library
offers greetings and these two sentences for all 36 story languages.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class DefaultTexts:
    greetings: tuple[str, ...]
    welcome: str
    """`{{default_name}}` is left out without a trace when no name is known."""
    fallback: tuple[str, str]


ENGLISH = DefaultTexts(
    ("hi", "hello", "hey", "good morning", "good afternoon", "good evening"),
    "Hello {{default_name}}!",
    ("Sorry, I did not get that.", "Could you say that another way?"),
)

TEXTS = {
    "arabic": DefaultTexts(
        ("مرحبا", "أهلا", "السلام عليكم", "صباح الخير", "مساء الخير"),
        "مرحبا {{default_name}}!",
        ("عذرا، لم أفهم ذلك.", "هل يمكنك قول ذلك بطريقة أخرى؟"),
    ),
    "armenian": DefaultTexts(
        ("բարև", "բարև ձեզ", "բարի լույս", "բարի երեկո"),
        "Բարև {{default_name}}!",
        ("Ներողություն, չհասկացա։", "Կարո՞ղ եք դա ասել այլ կերպ։"),
    ),
    "basque": DefaultTexts(
        ("kaixo", "egun on", "arratsalde on", "gabon"),
        "Kaixo {{default_name}}!",
        ("Barkatu, ez dut ulertu.", "Beste modu batera esan dezakezu?"),
    ),
    "catalan": DefaultTexts(
        ("hola", "bon dia", "bona tarda", "bona nit"),
        "Hola {{default_name}}!",
        ("Ho sento, no ho he entès.", "Ho pots dir d'una altra manera?"),
    ),
    "chinese": DefaultTexts(
        ("你好", "您好", "早上好", "下午好", "晚上好"),
        "你好 {{default_name}}！",
        ("抱歉，我没有听懂。", "您能换个说法吗？"),
    ),
    "czech": DefaultTexts(
        ("ahoj", "čau", "dobrý den", "dobré ráno", "dobrý večer"),
        "Ahoj {{default_name}}!",
        ("Promiňte, nerozuměl jsem.", "Můžete to říct jinak?"),
    ),
    "danish": DefaultTexts(
        ("hej", "hejsa", "goddag", "godmorgen", "god aften"),
        "Hej {{default_name}}!",
        ("Undskyld, det forstod jeg ikke.", "Kan du sige det på en anden måde?"),
    ),
    "dutch": DefaultTexts(
        ("hallo", "hoi", "goedemorgen", "goedemiddag", "goedenavond"),
        "Hallo {{default_name}}!",
        ("Sorry, dat begreep ik niet.", "Kun je dat anders zeggen?"),
    ),
    "english": ENGLISH,
    "esperanto": DefaultTexts(
        ("saluton", "bonan matenon", "bonan tagon", "bonan vesperon"),
        "Saluton {{default_name}}!",
        ("Pardonu, mi ne komprenis tion.", "Ĉu vi povas diri tion alimaniere?"),
    ),
    "estonian": DefaultTexts(
        ("tere", "tervist", "tere hommikust", "tere õhtust"),
        "Tere {{default_name}}!",
        ("Vabandust, ma ei saanud aru.", "Kas saaksite seda teisiti öelda?"),
    ),
    "finnish": DefaultTexts(
        ("hei", "moi", "terve", "hyvää huomenta", "hyvää iltaa"),
        "Hei {{default_name}}!",
        ("Anteeksi, en ymmärtänyt.", "Voisitko sanoa sen toisin?"),
    ),
    "french": DefaultTexts(
        ("bonjour", "salut", "bonsoir", "coucou"),
        "Bonjour {{default_name}} !",
        ("Désolé, je n'ai pas compris.", "Pouvez-vous le dire autrement ?"),
    ),
    "german": DefaultTexts(
        ("hallo", "servus", "moin", "guten tag", "guten morgen", "guten abend"),
        "Hallo {{default_name}}!",
        ("Entschuldigung, das habe ich nicht verstanden.", "Können Sie das anders sagen?"),
    ),
    "greek": DefaultTexts(
        ("γεια", "γεια σου", "γεια σας", "καλημέρα", "καλησπέρα"),
        "Γεια σας {{default_name}}!",
        ("Συγγνώμη, δεν το κατάλαβα.", "Μπορείτε να το πείτε αλλιώς;"),
    ),
    "hindi": DefaultTexts(
        ("नमस्ते", "नमस्कार", "सुप्रभात", "शुभ संध्या"),
        "नमस्ते {{default_name}}!",
        ("क्षमा करें, मैं समझ नहीं पाया।", "क्या आप इसे किसी और तरह से कह सकते हैं?"),
    ),
    "hungarian": DefaultTexts(
        ("szia", "sziasztok", "jó napot", "jó reggelt", "jó estét"),
        "Szia {{default_name}}!",
        ("Elnézést, ezt nem értettem.", "El tudnád mondani másképp?"),
    ),
    "indonesian": DefaultTexts(
        ("halo", "hai", "selamat pagi", "selamat siang", "selamat malam"),
        "Halo {{default_name}}!",
        ("Maaf, saya tidak mengerti.", "Bisakah Anda mengatakannya dengan cara lain?"),
    ),
    "irish": DefaultTexts(
        ("dia duit", "dia dhuit", "haigh", "maidin mhaith", "tráthnóna maith"),
        "Dia duit {{default_name}}!",
        ("Tá brón orm, níor thuig mé é sin.", "An féidir leat é sin a rá ar bhealach eile?"),
    ),
    "italian": DefaultTexts(
        ("ciao", "salve", "buongiorno", "buonasera"),
        "Ciao {{default_name}}!",
        ("Scusa, non ho capito.", "Puoi dirlo in un altro modo?"),
    ),
    "japanese": DefaultTexts(
        ("こんにちは", "おはよう", "おはようございます", "こんばんは"),
        "こんにちは {{default_name}}！",
        ("すみません、よく分かりませんでした。", "別の言い方で言っていただけますか？"),
    ),
    "lithuanian": DefaultTexts(
        ("labas", "sveiki", "laba diena", "labas rytas", "labas vakaras"),
        "Labas {{default_name}}!",
        ("Atsiprašau, nesupratau.", "Ar galite tai pasakyti kitaip?"),
    ),
    "nepali": DefaultTexts(
        ("नमस्ते", "नमस्कार", "शुभ प्रभात", "शुभ साँझ"),
        "नमस्ते {{default_name}}!",
        ("माफ गर्नुहोस्, मैले बुझिनँ।", "के तपाईं यसलाई अर्को तरिकाले भन्न सक्नुहुन्छ?"),
    ),
    "norwegian": DefaultTexts(
        ("hei", "hallo", "god morgen", "god dag", "god kveld"),
        "Hei {{default_name}}!",
        ("Beklager, det forsto jeg ikke.", "Kan du si det på en annen måte?"),
    ),
    "persian": DefaultTexts(
        ("سلام", "درود", "صبح بخیر", "عصر بخیر"),
        "سلام {{default_name}}!",
        ("ببخشید، متوجه نشدم.", "می‌توانید آن را طور دیگری بگویید؟"),
    ),
    "polish": DefaultTexts(
        ("cześć", "hej", "witam", "dzień dobry", "dobry wieczór"),
        "Cześć {{default_name}}!",
        ("Przepraszam, nie zrozumiałem.", "Czy możesz powiedzieć to inaczej?"),
    ),
    "portuguese": DefaultTexts(
        ("olá", "oi", "bom dia", "boa tarde", "boa noite"),
        "Olá {{default_name}}!",
        ("Desculpe, não entendi.", "Pode dizer isso de outra forma?"),
    ),
    "romanian": DefaultTexts(
        ("salut", "bună", "bună ziua", "bună dimineața", "bună seara"),
        "Salut {{default_name}}!",
        ("Scuze, nu am înțeles.", "Poți spune altfel?"),
    ),
    "russian": DefaultTexts(
        ("привет", "здравствуйте", "доброе утро", "добрый день", "добрый вечер"),
        "Привет {{default_name}}!",
        ("Извините, я не понял.", "Можете сказать это по-другому?"),
    ),
    "serbian": DefaultTexts(
        ("zdravo", "ćao", "здраво", "dobro jutro", "dobar dan", "dobro veče"),
        "Zdravo {{default_name}}!",
        ("Izvinite, nisam razumeo.", "Možete li to reći drugačije?"),
    ),
    "sesotho": DefaultTexts(
        ("dumela", "dumelang", "lumela", "lumelang"),
        "Dumela {{default_name}}!",
        ("Tshwarelo, ha ke a utlwisisa.", "Na o ka e bua ka tsela e nngwe?"),
    ),
    "spanish": DefaultTexts(
        ("hola", "buenas", "buenos días", "buenas tardes", "buenas noches"),
        "¡Hola {{default_name}}!",
        ("Perdón, no lo he entendido.", "¿Puedes decirlo de otra manera?"),
    ),
    "swedish": DefaultTexts(
        ("hej", "hejsan", "tjena", "god morgon", "god dag", "god kväll"),
        "Hej {{default_name}}!",
        ("Förlåt, det förstod jag inte.", "Kan du säga det på ett annat sätt?"),
    ),
    "tamil": DefaultTexts(
        ("வணக்கம்", "காலை வணக்கம்", "மாலை வணக்கம்"),
        "வணக்கம் {{default_name}}!",
        ("மன்னிக்கவும், எனக்குப் புரியவில்லை.", "வேறு விதமாகச் சொல்ல முடியுமா?"),
    ),
    "turkish": DefaultTexts(
        ("merhaba", "selam", "günaydın", "iyi günler", "iyi akşamlar"),
        "Merhaba {{default_name}}!",
        ("Üzgünüm, anlayamadım.", "Bunu başka bir şekilde söyleyebilir misiniz?"),
    ),
    "yiddish": DefaultTexts(
        ("שלום", "שלום עליכם", "גוט מאָרגן", "גוטן טאָג", "גוטן אָוונט"),
        "שלום {{default_name}}!",
        ("זײַט מוחל, איך האָב ניט פֿאַרשטאַנען.", "קענט איר דאָס זאָגן אויף אַן אַנדער אופֿן?"),
    ),
}


def texts_for(language: str) -> DefaultTexts:
    """The language's texts, its greetings followed by the English ones."""
    own = TEXTS[language]
    greetings = dict.fromkeys((*own.greetings, *ENGLISH.greetings))
    return DefaultTexts(tuple(greetings), own.welcome, own.fallback)
