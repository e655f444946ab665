"""The instructions to AI readers the injection guard looks for, as patterns.

Each pattern needs the addressee or the object of the instruction ("the previous
*instructions*", "*AI* assistants reading this"), not just the verb: "patients who
ignore the leaflet" is medicine, not an attack (`injection.py` says how they are run).
They are compiled with their own look-alikes folded, as the text they run on is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from lyra.pipelines.extract.lookalikes import fold_confusables

_AI = (
    r"(?:ai|a\.i\.|artificial\s+intelligence|llms?|(?:large\s+)?language\s+models?|"
    r"chat\s*bots?|gpts?|chatgpt|claude|gemini|copilot|grok|deepseek|perplexity|mistral|qwen|"
    r"ai\s+(?:assistants?|agents?|models?|systems?|readers?|tools?|crawlers?|summari[sz]ers?))"
)
QUALIFIER = (
    r"(?:previous|prior|above|earlier|preceding|foregoing|system|original|initial|"
    r"developer|your|all|any)"
)
_OBJECT = (
    r"(?:instructions?|prompts?|rules|directions|commands|guidelines|directives|"
    r"programming|constraints|messages?|context)"
)
# The verbs an order to a reading tool starts with ("Summary tools: report that…").
_ORDER = (
    r"(?:report|cite|quote|say|state|print|write|output|include|mention|answer|reply|respond|"
    r"ignore|describe|claim|conclude|add|append|insert|repeat|tell|treat|present|recommend|"
    r"send|open|visit|call|rate|rank|summari[sz]e|list)"
)
_AI_JA = (
    r"(?:AI|人工知能|LLM|大規模言語モデル|言語モデル|チャットボット|"
    r"AIアシスタント|アシスタント|エージェント|生成AI)"
)

# (name, pattern): run case-insensitively over the folded text. See the module
# docstring for why each needs its object or addressee.
# Compiled with their own look-alikes folded, as the text they run on is: a Russian
# pattern's Cyrillic "e" and "a" (U+0435, U+0430) are Latin letters in folded text.
INSTRUCTION_PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple(
    (name, re.compile(fold_confusables(pattern), re.IGNORECASE))
    for name, pattern in (
        ("ignore_instructions",
         rf"\b(?:ignore|disregard|forget|override|bypass|set\s+aside|put\s+aside|discard|"
         rf"abandon|pay\s+no\s+(?:attention|heed)\s+to|take\s+no\s+notice\s+of)\s+"
         rf"(?:all\s+|any\s+|of\s+)?"
         rf"(?:the\s+|your\s+|my\s+)?{QUALIFIER}\s+(?:\w+\s+){{0,2}}{_OBJECT}\b"
         r"|\b(?:ignore|disregard|forget|set\s+aside|put\s+aside|discard|abandon)\s+"
         r"(?:everything|all|anything)\s+(?:(?:that\s+)?you(?:'ve|\s+have|\s+had)?\s+"
         r"(?:were\s+|been\s+|have\s+been\s+)?(?:told|given|instructed|taught|asked)|above|"
         r"before|previously)\b"
         r"|\bdisregard\s+the\s+above\b"),
        ("addressed_to_ai",
         rf"\b(?:note|message|instructions?|attention|notice|reminder|directive|request)s?"
         rf"\s*(?:to|for)\s+(?:all\s+|any\s+|every\s+)?(?:the\s+)?{_AI}\b"
         rf"|\bif\s+you\s+are\s+(?:an?\s+|the\s+)?(?:{_AI}|assistant|bot|automated\s+\w+)\b"
         rf"|\b(?:dear|attention|hey|hello)\s*,?\s+{_AI}\b"
         rf"|\bas\s+an?\s+{_AI}\s+(?:reader|reading|processing|summari[sz]ing)\b"
         rf"|\b{_AI}\s+(?:that\s+(?:are|is)\s+|who\s+(?:are|is)\s+)?(?:reading|processing|"
         r"summari[sz]ing|parsing|analy[sz]ing|indexing|crawling|scraping|reviewing)\s+"
         r"(?:this|these)\b"
         rf"|\b(?:to|for)\s+(?:any|all|every)\s+{_AI}\b"
         r"|\bai\s+readers?\b"),
        ("role_change",
         rf"\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:\w+\s+){{0,2}}(?:{_AI}|assistant|"
         r"bot|agent|dan|mode)\b"
         r"|\bfrom\s+now\s+on\s*,?\s+(?:you\s+(?:are|will|must|should)|act|respond|answer|reply)\b"
         r"|\bpretend\s+(?:to\s+be|you\s+are)\s+(?:an?\s+)?(?:\w+\s+)?(?:ai|assistant|model|system)\b"),
        ("steer_output",
         r"\b(?:include|insert|add|append|mention|output|print|write|say|state|repeat|put|"
         r"embed|begin|start|end)\b[^.!?\n]{0,80}?\b(?:in|to|into|with|at\s+the\s+"
         r"(?:start|end|beginning)\s+of)\s+(?:your|every|each|all\s+your)\s+(?:\w+\s+)?"
         r"(?:answers?|responses?|replies|reply|summary|summaries|outputs?|reports?|"
         r"messages?|completions?)\b"
         r"|\b(?:include|insert|add|append|mention|output|print|write|say|repeat|put|embed)\b"
         r"[^.!?\n]{0,80}?\b(?:in|to|into|with)\s+any\s+(?:(?:answers?|responses?|replies|"
         r"outputs?|completions?)\b|summar(?:y|ies)\s+you\s+(?:produce|write|generate|give|create"
         r"|return)\b)"
         r"|\b(?:reply|respond|answer)\s+(?:only\s+with|with\s+only|with\s*:|with\s+exactly|"
         r"with\s+the\s+following)"
         r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|alert|warn|mention\s+(?:this|it)\s+"
         r"to)\s+(?:the\s+|your\s+)?user\b"
         r"|\btell\s+the\s+user\s+(?:that|to)\b"),
        ("system_prompt",
         r"\b(?:reveal|print|repeat|show|output|leak|disclose)\s+(?:me\s+)?(?:your|the)\s+"
         r"(?:\w+\s+){0,2}(?:system\s+)?(?:prompt|instructions)\b"
         r"|\bnew\s+(?:system\s+)?instructions?\s*:"
         r"|\b(?:system|admin|developer)\s+(?:override|message|note|instructions?)\s*:"
         # "the system prompt", not "the system prompts a nurse".
         r"|\b(?:your|the|my)\s+system\s+prompt\b"),
        ("fake_role_marker",
         r"<\|[a-z_]{2,24}\|>|\[/?inst\]|<<\s*/?\s*sys\s*>>|<\s*(?:start|end)_of_turn\s*>"
         r"|\[(?:system|sys|assistant|admin|developer|system\s+(?:prompt|message|note))\]"
         r"|(?<!#)#{2,}[ \t]*(?:instruction|system)s?[ \t]*:"
         r"|\b(?:begin|start|end)\s+(?:of\s+)?(?:the\s+)?(?:system|developer|hidden)\s+"
         r"(?:prompt|message|instructions?)\b"
         # A system's or assistant's turn that speaks to the model or answers for it,
         # at a line's start or after a sentence ("Review of systems. System:
         # cardiovascular" is a clinical note). Anchored on the label (tried at word
         # starts only) and no \s* across lines: blank lines are not rescanned at each.
         # Turns of other speakers count only in a transcript (see `_hits`).
         r"|\b(?<![^\n# \t])(?<![^\n]\w[ \t])(?:system|assistant)[ \t]*:[ \t]*(?=(?:you|ignore|"
         r"disregard|from\s+now|always|never|the\s+(?:verified|correct|only|final|true)|answer|"
         r"respond|reply|say|state|understood|every\s+(?:answer|reply|response)|new\s+"
         r"instructions|i\s+will|i\s+understand|sure|ok)\b)"),
        ("addressed_to_model",
         # A model, assistant or agent is a reader only when the sentence says so: an
         # AI word before it, or its reading of this page after it. "Every prediction
         # model must state its intended use" (TRIPOD) and "the mouse models must answer
         # the question" are science; a bare "the model must answer that…" is not.
         r"\b(?:any|every|each|the|an?)\s+(?:\w+\s+){0,2}?(?:(?:ai|a\.i\.|language|llm|chat|"
         r"generative|automated|virtual)\s+(?:models?|assistants?|agents?)|summari[sz]ers?|"
         r"(?:chat)?bots?|(?:models?|assistants?|agents?)\s+(?:summari[sz]ing|reading|processing"
         r"|parsing)\s+this\s+(?:article|page|document|text|post|site))\b[^.!?\n]{0,60}?"
         r"\b(?:must|should|shall|(?:is|are)\s+(?:required|instructed)\s+to)\s+(?:always\s+|"
         r"only\s+)?(?:state|answer|say|reply|respond|output|print|write|claim|conclude|"
         r"report\s+that|cite|quote)\b"
         r"|\b(?:the|any|every)\s+models?\s+(?:must|should|shall)\s+(?:always\s+|only\s+)?"
         r"(?:state|answer|say|reply|respond|claim|conclude)\s+that\b"
         r"|\b(?:guidance|instructions?|notes?)\s+(?:for|to)\s+(?:automated|machine)\s+"
         r"(?:summar\w+|readers?|systems?|tools?)\b"
         r"|\b(?:use|report)\s+(?:the\s+)?(?:next|following)\s+"
         r"(?:sentence|paragraph|statement|line(?!\s+of))\b"),
        ("jailbreak", r"\b(?:jailbreak|developer\s+mode|do\s+anything\s+now|dan\s+mode)\b"),
        ("tool_call",
         r"\{\s*\"(?:tool|tool_name|function|function_call|name|action|recipient_name)\"\s*:"
         r"[^{}]{0,200}?\"(?:arguments|parameters|args|input|params|action_input)\"\s*:"
         r"|\"tool_calls?\"\s*:"
         r"|\"type\"\s*:\s*\"(?:tool_use|server_tool_use|tool_call|function_call)\""
         r"|<\s*/?\s*(?:tool_call|function_call|function_calls|tool_use|invoke)\b"),
        ("exfiltration_link",
         # Markdown images in page text (rendered by a client, they fetch their URL),
         # by URL or by reference, and reference definitions that carry a query.
         # Every run is bounded and the parts around a "?" cannot hold one, so no text
         # is tried two ways (a link with its query carrying a code-like token, the
         # data it would send, is found in `_hits`).
         r"!\[[^\]\n]{0,200}\]\(\s*<?\s*(?:https?:)?//[^\s()\[\]]{1,512}"
         r"(?:[ \t]+(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'))?[ \t]*\)"
         r"|!\[[^\]\n]{0,200}\]\[[^\]\n]{0,40}\]"
         r"|(?:^|(?<=\s))\[[^\]\n]{1,40}\]:[ \t]*<?(?:https?:)?//[^\s?]{1,512}\?\S{1,512}"
         r"|<img\b[^>]{0,200}\bsrc\s*=\s*[\"']?(?:https?:)?//[^\"'\s>?]{1,512}\?[^\"'\s>]{1,512}"),
        ("exfiltration",
         r"\b(?:send|post|upload|exfiltrate|forward|transmit|leak)\s+(?:it|this|them|"
         r"(?:the|all|your)\s+\w+(?:\s+\w+)?)\s+to\s+(?:https?://|www\.|\S+@)"),
        ("ignore_instructions_ja",
         r"(?:以前|前|上記|上|これまで|今まで|先|過去|最初)の(?:全て|すべて|あらゆる)?の?"
         r"(?:指示|命令|指令|プロンプト|ルール|設定|制約)(?:は|を)?(?:全て|すべて)?"
         r"(?:無視|忘れ|破棄|気にせ|気にし|従わ)"
         r"|(?:指示|命令|指令)を(?:全て|すべて)?無視"),
        ("addressed_to_ai_ja",
         rf"(?:この|本|当)(?:ページ|文書|記事|テキスト|文章|サイト)を[^。]{{0,12}}{_AI_JA}"
         rf"|{_AI_JA}(?:の(?:皆さん|皆様|方)|へ|に)(?:の|は|向けの)?"
         r"(?:指示|注意|お願い|メッセージ|命令|通知|連絡)"
         rf"|(?:あなた|君|お前)が{_AI_JA}(?:である|なら|ならば|の場合|であれば)"),
        ("steer_output_ja",
         r"(?:回答|応答|返答|返信|要約|出力|答え)(?:の(?:最初|最後|冒頭|末尾))?(?:に|へ)"
         r"[^。]{0,40}?を(?:必ず)?(?:含め|入れ|追加|記載|出力|書|付け|挿入)"
         r"|ユーザー(?:に|には)[^。]{0,20}(?:伝えない|知らせない|言わない|教えない|伝えるな)"
         r"|(?:あなた|君)は(?:今から|これから)?[^。]{0,20}として(?:振る舞|ふるま|行動|応答|回答)"),
        ("system_prompt_ja", r"システム\s*プロンプト"),
        ("steer_output_polite",
         r"\bsummar(?:y|ies)\s+of\s+this\s+(?:page|article|document|post|site|text|study|trial|"
         r"paper|report|review|entry|record|source|abstract)\b"
         r"[^.!?\n]{0,40}?\b(?:should|must|shall|need\s+to|are\s+to|is\s+to)\b"
         r"|\bwhen\s+you\s+(?:answer|respond|reply|summari[sz]e|write\s+about|describe|discuss|"
         r"report\s+on)\b[^.!?\n]{0,40}?\b(?:this|these)\s+(?:page|article|document|text|post|"
         r"site)s?\b[^.!?\n]{0,40}?\b(?:say|state|mention|tell|include|claim|answer|write|"
         r"report|stress|insist)\b"
         r"|\b(?:respond|reply|say|explain|report|answer)\s+to\s+the\s+user\b"
         r"|\b(?:show|display|render|present)\s+(?:this|it|these|the\s+following)\s+to\s+the\s+"
         r"user\b"
         r"|\b(?:decode|decrypt|url-decode|base64-decode|de-?obfuscate|unscramble)\b"
         r"[^.!?\n]{0,40}?\b(?:and|then)\s+(?:follow|obey|execute|comply\s+with)\b"
         r"|\bapply\s+rot-?13\b"),
        ("addressed_to_tools",
         # A tool named as the one spoken to, then told what to do: "Summary tools:
         # report that…", "(assistants: cite this as…)", "For automated summarizers:",
         # "Readers' assistants should open…", "Automated summaries of this trial are
         # to…". A person's job title with a colon ("Research assistants: …") reads
         # the same and is rare in the text of a page.
         rf"\b(?:summary|summari[sz]ation|summari[sz]ing|reading|search|answer|citation|"
         rf"writing)\s+(?:tools?|engines?|assistants?|bots?|agents?|software|apps?)\s*[:,]\s*"
         rf"(?:please\s+)?{_ORDER}\b"
         rf"|(?<![\w'\u2019-])(?:assistants?|summari[sz]ers?|chat\s*bots?|bots|llms?|agents|crawlers?|"
         rf"scrapers?|{_AI})\s*:\s*(?:please\s+)?{_ORDER}\b"
         r"|\bfor\s+(?:automated|machine|ai)\s+(?:summar\w+|readers?|systems?|tools?|"
         r"assistants?|agents?)\s*[:,]"
         r"|\b(?:automated|machine[- ]generated|ai[- ]generated)\s+(?:summar(?:y|ies)|answers?|"
         r"responses?|overviews?)\s+(?:of|about|on)\s+this\b[^.!?\n]{0,40}?\b(?:should|must|"
         r"shall|need\s+to|are\s+to|is\s+to)\b"
         rf"|\b(?:readers?|users?|visitors?)(?:'s?|\u2019s?)?\s+(?:ai\s+)?(?:assistants?|agents?|"
         rf"bots?|tools?)\s+(?:must|should|shall|need\s+to|are\s+to)\s+(?:always\s+)?"
         rf"{_ORDER}\b"),
        ("addressed_to_ai_other",
         r"\b(?:hinweis|nachricht|anweisung(?:en)?|achtung)\s+(?:für|an)\s+(?:alle\s+)?"
         r"(?:die\s+)?(?:ki|ai)(?:[-\s]+(?:assistenten|systeme|modelle|agenten|leser)\b|"
         r"(?=\s*[:.,;!]))"
         r"|\b(?:note|message|instructions?|avis)\s+(?:à\s+l'intention\s+des|aux|pour\s+les)\s+"
         r"(?:assistants?|agents?|modèles?|systèmes?)\s+(?:d'|de\s+)?ia\b"
         r"|\b(?:nota|mensaje|instrucciones?|aviso)\s+(?:para|a)\s+(?:los\s+|las\s+)?"
         r"(?:asistentes?|agentes?|modelos?|sistemas?)\s+de\s+ia\b"
         r"|\b(?:nota|messaggio|istruzioni)\s+per\s+(?:gli\s+|i\s+)?(?:assistenti|agenti|modelli)\s+"
         r"(?:di\s+)?ia\b"
         r"|(?:致|给|對|对)(?:所有|全部)?的?(?:AI|人工智能|大模型|语言模型)(?:助手|助理|模型|系统)?"
         r"|(?:AI|人工智能)(?:助手|助理)(?:们|請|请)"
         r"|\b(?:antworten|antworte)\s+(?:sie\s+)?(?:nur|ausschließlich)\s+mit\b"
         r"|\b(?:répondez|réponds)\s+(?:uniquement|seulement)\s+(?:par|avec)\b"
         r"|\b(?:responde|responda|contesta)\s+(?:solo|solamente|únicamente)\s+con\b"
         r"|只(?:回复|回答|输出|回覆)|不要告(?:诉|訴)用(?:户|戶)"
         r"|\b(?:примечание|сообщение|внимание|инструкция|указание)\s+(?:для|к)\s+(?:всех\s+)?"
         r"(?:ии|ai|нейросет\w*)(?:[\s-]+(?:ассистент\w*|помощник\w*|модел\w*|агент\w*))?"
         r"|(?:ملاحظة|رسالة|تنبيه|تعليمات)\s+(?:إلى|ل|الى)\s*(?:جميع\s+)?(?:مساعدي|مساعد|نماذج|أنظمة)"
         r"\s+الذكاء\s+الاصطناعي"
         r"|\b(?:nota|mensagem|aviso|instruções)\s+(?:para|aos)\s+(?:os\s+)?(?:assistentes?|"
         r"agentes?|modelos?|sistemas?)\s+(?:de\s+)?ia\b"
         r"|\b(?:opmerking|bericht|notitie)\s+voor\s+(?:alle\s+)?(?:ai|ki)[\s-]*(?:assistenten|"
         r"modellen|systemen)?\b"
         r"|(?:AI|인공지능)\s*(?:어시스턴트|비서|모델)(?:에게|들에게|께)"),
        ("ignore_instructions_other",
         r"\b(?:vergessen|vergiss|ignorieren)\s+(?:sie\s+)?(?:alle\s+)?(?:vorherigen|bisherigen|"
         r"obigen|früheren)\s+(?:anweisungen|instruktionen|befehle)"
         r"|\b(?:oubliez|oublie)\s+(?:toutes\s+)?(?:les\s+)?(?:instructions|consignes)\s+"
         r"(?:précédentes|antérieures)"
         r"|\b(?:olvida|olvide)\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores|previas)"
         r"|(?:忘记|忘掉|忽略|無視|忽視)(?:你)?(?:之前|以上|先前|上述|前面)(?:收到)?的?(?:所有)?的?"
         r"(?:指令|指示|提示|命令)"
         r"|\bignora(?:r)?\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores|previas)"
         r"|\b(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?)\s+(?:все\s+)?"
         r"(?:предыдущие|прежние|предшествующие|вышеуказанные)\s+(?:инструкции|указания|команды)"
         r"|(?:تجاهل|تجاهلوا|انس)\s+(?:جميع\s+|كل\s+)?(?:التعليمات|الأوامر|التوجيهات)\s+السابقة"
         r"|\bignor(?:e|em|ar|a|ate)\s+(?:todas\s+|tutte\s+)?(?:as\s+|le\s+)?"
         r"(?:instruções|istruzioni)\s+(?:anteriores|precedenti|prévias)"
         r"|\bnegeer\s+(?:alle\s+)?(?:vorige|eerdere)\s+(?:instructies|opdrachten)"
         r"|\bzignoruj\s+(?:wszystkie\s+)?(?:poprzednie|wcześniejsze)\s+(?:instrukcje|polecenia)"
         r"|\bignore[zr]?\s+(?:toutes\s+)?les\s+instructions\s+(?:précédentes|antérieures)"
         r"|\bignorier(?:e|en)?\s+(?:alle\s+)?(?:vorherigen|bisherigen|obigen)\s+"
         r"(?:anweisungen|instruktionen)"
         r"|忽略(?:之前|以上|先前|上述|前面)的?(?:所有)?的?(?:指令|指示|提示)"
         r"|(?:不要理会|不要理會|不用管|别管|別管|无视|無視)(?:你)?(?:之前|以上|先前|上述|前面)(?:收到)?的?"
         r"(?:所有)?的?(?:指令|指示|提示|命令)"
         # German, French, Spanish: more verbs, "bitte", "Sie".
         r"|\b(?:missachte|missachten|übergehe|übergehen|ignoriere|ignorieren|vergiss|vergessen)"
         r"\s+(?:sie\s+)?(?:bitte\s+)?(?:alle\s+)?(?:die\s+)?(?:vorherigen|bisherigen|obigen|"
         r"früheren|vorangegangenen|vorigen)\s+(?:anweisungen|instruktionen|befehle|vorgaben)"
         r"|\bne\s+(?:tenez|tiens)\s+(?:pas|plus)\s+compte\s+(?:des|de\s+toutes\s+les)\s+"
         r"(?:instructions|consignes|directives)\s+(?:précédentes|antérieures|ci-dessus)"
         r"|\bfai(?:tes|s)\s+abstraction\s+des\s+(?:instructions|consignes)\s+"
         r"(?:précédentes|antérieures)"
         r"|\b(?:haz|haga|hagan)\s+caso\s+omiso\s+(?:de|a)\s+(?:todas\s+)?las\s+"
         r"(?:instrucciones|indicaciones|órdenes)\s+(?:anteriores|previas)"
         r"|\bno\s+hagas\s+caso\s+(?:de|a)\s+(?:todas\s+)?las\s+(?:instrucciones|indicaciones)"
         r"\s+(?:anteriores|previas)"
         # Turkish, Vietnamese, Indonesian and Malay, Hindi, Greek, Hebrew, the
         # Scandinavian languages, Finnish, Czech, Ukrainian, Romanian, Hungarian, Thai.
         r"|\bönceki\s+(?:tüm\s+|bütün\s+)?(?:talimatlar\u0131|komutlar\u0131|yönergeleri)\s+"
         r"(?:yok\s+say|görmezden\s+gel|unut)"
         r"|\b(?:bỏ\s+qua|phớt\s+lờ|quên)\s+(?:đi\s+)?(?:tất\s+cả\s+)?(?:các\s+|mọi\s+|những\s+)?"
         r"(?:hướng\s+dẫn|chỉ\s+dẫn|lệnh|chỉ\s+thị)\s+(?:trước\s+đó|trước\s+đây|trước|ở\s+trên)"
         r"|\b(?:abaikan|lupakan)\s+(?:semua\s+|seluruh\s+)?(?:instruksi|perintah|petunjuk|arahan)"
         r"\s+(?:sebelumnya|di\s+atas|terdahulu)"
         r"|(?:पिछले|पूर्व|पहले\s+के|ऊपर\s+के)\s+(?:सभी\s+)?(?:निर्देशों|आदेशों|निर्देश)\s+(?:को\s+)?"
         r"(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)"
         r"|(?:αγνόησε|αγνοήστε|ξέχασε|ξεχάστε)\s+(?:όλες\s+)?(?:τις\s+)?(?:προηγούμενες|"
         r"παραπάνω)\s+(?:οδηγίες|εντολές)"
         r"|(?:התעלם|התעלמי|התעלמו|שכח|שכחי|שכחו)\s+(?:מכל|מ|את\s+כל|את)\s*ה?(?:הוראות|הנחיות|"
         r"פקודות)\s+ה?קודמות"
         r"|\b(?:ignorera|glöm|strunta\s+i|ignorer|glem)\s+(?:alla\s+|alle\s+)?(?:tidigare|"
         r"föregående|ovanstående|tidligere|forrige|ovenstående)\s+(?:instruktioner|anvisningar|"
         r"kommandon|instruksjoner|instrukser|anvisninger)"
         r"|\b(?:ohita|unohda)\s+(?:kaikki\s+)?(?:aiemmat|edelliset)\s+(?:ohjeet|käskyt)"
         r"|\bignoruj(?:te)?\s+(?:všechny\s+)?(?:předchozí|předešlé)\s+(?:pokyny|instrukce)"
         r"|(?:ігноруй(?:те)?|забудь(?:те)?)\s+(?:усі\s+|всі\s+)?попередні\s+(?:інструкції|"  # noqa: RUF001
         r"вказівки|команди)"
         r"|\bignor(?:ă|a|ați)\s+(?:toate\s+)?instrucțiunile\s+(?:anterioare|precedente)"
         r"|\bhagyd\s+figyelmen\s+kívül\s+(?:az\s+)?(?:összes\s+)?(?:korábbi|előző)\s+"
         r"utasítás(?:t|okat)"
         r"|(?:เพิกเฉย|ละเว้น|ลืม)(?:ต่อ)?คำสั่ง(?:ทั้งหมด)?(?:ก่อนหน้า|ที่ผ่านมา)"
         r"|이전\s*(?:의\s*)?(?:모든\s*)?(?:지시|명령|지침)(?:을|를)?\s*무시"),
    )
)  # fmt: skip

# Words at least one of which every match of a pattern holds (lower-cased, look-alikes
# folded as in the text): a pattern is run only over text that holds one. A long
# alternation runs over every position of a page; `in` over the lower-cased text is
# ten times faster, and most pages hold none of these words.
NEEDLES: Final = {
    name: tuple(fold_confusables(needle).lower() for needle in needles)
    for name, needles in (
        ("ignore_instructions_other", (
            "instru", "anweisung", "befehl", "vorgabe", "consigne", "directive", "indicaci",
            "órdenes", "指令", "指示", "提示", "命令", "инструкц", "указани", "команд", "التعليمات",
            "الأوامر", "التوجيهات", "istruzion", "opdracht", "polecen", "talimat", "komut",
            "yönerge", "hướng dẫn", "chỉ dẫn", "lệnh", "chỉ thị", "perintah", "petunjuk",
            "arahan", "निर्देश", "आदेश", "οδηγίες", "εντολές", "הוראות", "הנחיות", "פקודות",
            "anvisning", "kommando", "ohjeet", "käskyt", "pokyny", "інструкц", "вказівк",
            "utasítás", "คำสั่ง", "지시", "명령", "지침",
        )),
        ("addressed_to_ai_other", (
            "hinweis", "nachricht", "anweisung", "achtung", "note", "message", "instruction",
            "avis", "nota", "mensaje", "instruccion", "aviso", "messaggio", "istruzion", "致",
            "给", "對", "对", "助手", "助理", "antwort", "répond", "respond", "contesta", "只",
            "不要告", "примечание", "сообщение", "внимание", "инструкция", "указание",
            "ملاحظة", "رسالة", "تنبيه", "تعليمات", "mensagem", "instruç", "opmerking",
            "bericht", "notitie", "어시스턴트", "비서", "모델",
        )),
        ("addressed_to_tools", (
            # a tool's name, or an AI word, before its colon or its "should"
            "tool", "engine", "assistant", "bot", "agent", "software", "app", "summar",
            "llm", "crawler", "scraper", "automated", "machine", "generated", "ai:", "ai :",
            "reader", "model", "system",
            "a.i.", "artificial intelligence", "language model", "chat", "gpt", "claude",
            "gemini", "copilot", "grok", "deepseek", "perplexity", "mistral", "qwen",
        )),
    )
}  # fmt: skip


def run_patterns(variant: str) -> Iterable[tuple[str, re.Match[str]]]:
    """Each pattern's matches in `variant` (a pattern with needles only where one is)."""
    lower = variant.lower()
    for name, pattern in INSTRUCTION_PATTERNS:
        needles = NEEDLES.get(name)
        if needles is not None and not any(n in lower for n in needles):
            continue
        for m in pattern.finditer(variant):
            yield name, m
